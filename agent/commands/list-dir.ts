import { listDir } from '../../core/engine/index.ts';
import type { CommandOutcome } from './command-types.ts';

export { listDir, MAX_ENTRIES } from '../../core/engine/index.ts';

export async function listDirCommand(payload: Record<string, unknown>): Promise<CommandOutcome> {
  return { success: true, result: { ...(await listDir(payload.path)) } };
}
