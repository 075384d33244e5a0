import { errorText } from '../../core/engine/index.ts';
import type { ClaimedCommand, CommandContext, CommandOutcome } from './command-types.ts';
import { listDirCommand } from './list-dir.ts';
import { discoverDbCommand } from './discover-db.ts';
import { restoreRecordCommand } from './restore-record.ts';
import { runTaskCommand } from './run-task.ts';

type Handler = (payload: Record<string, unknown>, ctx: CommandContext) => Promise<CommandOutcome>;

const HANDLERS: Record<string, Handler> = {
  run_task: runTaskCommand,
  restore_record: restoreRecordCommand,
  list_dir: (payload) => listDirCommand(payload),
  discover_db: discoverDbCommand,
};

/** Runs one claimed command to its outcome; never throws (a failure is an outcome). */
export async function executeCommand(command: ClaimedCommand, ctx: CommandContext): Promise<CommandOutcome> {
  const handler = Object.hasOwn(HANDLERS, command.type) ? HANDLERS[command.type] : undefined;
  if (!handler) return { success: false, error: `unknown command type "${command.type}"` };
  try {
    return await handler(command.payload ?? {}, ctx);
  } catch (err) {
    return { success: false, error: ctx.signal.aborted ? errorText(ctx.signal.reason) : errorText(err) };
  }
}
