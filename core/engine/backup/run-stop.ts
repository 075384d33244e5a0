import { errorText } from '../host/text.ts';

export type StopStatus = 'cancelled' | 'failed';

/**
 * Why a run was stopped before its end, carried as the abort reason of its signal: the text
 * the record keeps and the status it ends with. A person's cancel ends `cancelled`; the task's
 * time limit ends `failed` (the backup it was meant to take does not exist, and failures are
 * what operators are alerted on).
 */
export class RunStop extends Error {
  override name = 'RunStop';
  readonly status: StopStatus;

  constructor(message: string, status: StopStatus) {
    super(message);
    this.status = status;
  }
}

export function cancelledBy(actor: string): RunStop {
  return new RunStop(`cancelled by ${actor}`, 'cancelled');
}

export function timeLimitReached(minutes: number): RunStop {
  return new RunStop(
    `time limit of ${minutes} minute${minutes === 1 ? '' : 's'} reached; the run was stopped and anything it stored removed`,
    'failed',
  );
}

/** The terminal status and reason of a run whose signal fired (a shutdown is a plain cancel). */
export function stopOutcome(reason: unknown): { status: StopStatus; message: string } {
  if (reason instanceof RunStop) return { status: reason.status, message: reason.message };
  return { status: 'cancelled', message: `cancelled: ${errorText(reason)}` };
}
