import { defineModule } from '../../lib/app-module.ts';
import { agentSelfRoutes } from './agent-self-routes.ts';

export default defineModule({ name: 'features/agent-identity', routes: [agentSelfRoutes] });
