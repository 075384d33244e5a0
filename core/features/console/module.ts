import { defineModule } from '../../lib/app-module.ts';
import { consolePlugin } from './console-plugin.ts';

/** Last: the console's page fallback answers only what no other module's route claims. */
export default defineModule({ name: 'features/console', routes: [consolePlugin], last: true });
