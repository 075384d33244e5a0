import { listDir } from '../../core/agent-protocol/dir-listing.ts';
import type { CommandOutcome } from './command-types.ts';

export { listDir, MAX_ENTRIES } from '../../core/agent-protocol/dir-listing.ts';

export async function listDirCommand(payload: Record<string, unknown>): Promise<CommandOutcome> {
  return { success: true, result: { ...(await listDir(payload.path)) } };
}
