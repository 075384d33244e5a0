/** English text of the console's reports pages (i18next namespace `reports`). */
export default {
  compliance: {
    title: 'Compliance report',
    description: 'Evidence per task for auditors: runs, last good backup, recovery objectives met or not.',
    exportCsv: 'Export CSV', printable: 'Printable report', generated: 'Generated {{when}}, covering the last {{days}} days.',
    filters: { days: 'Period', daysOption: 'Last {{count}} days', risk: 'Compliance', search: 'Task name', searchPlaceholder: 'Filter by task name' },
    risk: { all: 'All', ok: 'Compliant', at_risk: 'At risk', not_applicable: 'Not applicable' },
    summary: {
      tasks: 'Tasks', enabled: '{{count}} enabled', compliant: 'Compliant', atRisk: 'At risk', encrypted: 'Encrypted',
      successRate: 'Success rate', protected: 'Protected', rtoExceeded: 'RTO exceeded', rtoUnmeasured: 'RTO not measured',
    },
    columns: {
      task: 'Task', node: 'Node', compliance: 'Compliance', why: 'Why', runs: 'Runs (ok / failed)', successRate: 'Success rate',
      lastSuccess: 'Last success', protected: 'Protected', rpo: 'RPO', rto: 'RTO', encrypted: 'Encrypted',
    },
    reasons: {
      ok: 'Every objective met', disabled: 'Task disabled', neverSucceeded: 'Never succeeded',
      rpoMissed: 'Last success {{hours}} h ago, RPO {{rpo}} h', rtoExceeded: 'Restore took {{measured}} min, RTO {{rto}} min',
      rtoUnmeasured: 'RTO {{rto}} min not proven by a recent restore',
    },
    encryptedTag: 'encrypted', rpoHours: '{{count}} h', rtoMinutes: '{{count}} min', notSet: 'not set',
    empty: 'No backup tasks yet.', emptyHint: 'Create a backup task: its evidence appears here once it has run.', createTask: 'Create a task',
    noMatch: 'No task matches these filters.', count: '{{shown}} of {{total}} tasks',
  },
} as const;
