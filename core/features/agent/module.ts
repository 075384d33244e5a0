import { defineModule } from '../../lib/app-module.ts';
import { agentCommandRoutes } from './agent-command-routes.ts';
import { agentRunRoutes } from './agent-run-routes.ts';
import { agentRestoreRoutes } from './agent-restore-routes.ts';
import { agentRepositoryRoutes } from './agent-repository-routes.ts';

export default defineModule({
  name: 'features/agent',
  routes: [agentCommandRoutes, agentRunRoutes, agentRestoreRoutes, agentRepositoryRoutes],
});
