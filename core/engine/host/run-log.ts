/** Where a run's log lines go: the master's record log, or the agent's updates to the master. */
export type RunLog = (level: 'info' | 'warn' | 'error', message: string) => void;
