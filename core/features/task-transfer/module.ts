import { defineModule } from '../../lib/app-module.ts';
import { taskTransferRoutes } from './task-transfer-routes.ts';

export default defineModule({ name: 'features/task-transfer', routes: [taskTransferRoutes] });
