/** English text of the console's dashboard pages (i18next namespace `dashboard`). */
export default {
  title: 'Dashboard',
  description: 'Is everything backed up, could it be restored in time, and what is going wrong.',
  window: { label: 'Period', days: '{{count}} days' },
  live: { connected: 'Live', reconnecting: 'Reconnecting…', label: 'Live updates' },
  stats: {
    tasks: 'Backup tasks', tasksEnabled: '{{count}} enabled', records: 'Backup runs', successRate: 'Success rate',
    successRateHint: 'Runs started in the last 30 days', stored: 'Stored', lastBackup: 'Last backup', noneYet: 'none yet',
  },
  timeline: {
    title: 'Runs per day', success: 'Succeeded', failed: 'Failed', partial: 'Partial',
    totals: '{{runs}} runs: {{success}} succeeded, {{failed}} failed, {{partial}} partial', empty: 'No runs in this period.',
  },
  storage: { title: 'Stored per target', size: 'Stored', empty: 'Nothing stored yet.' },
  sla: {
    title: 'Recovery objectives (RPO / RTO)',
    rpoSummary: '{{compliant}} of {{total}} tasks within their RPO', rtoSummary: 'RTO: {{ok}} proven, {{exceeded}} exceeded, {{unmeasured}} not measured',
    empty: 'No task has a recovery objective.', emptyHint: 'Set an RPO (hours) or RTO (minutes) on a task to see here whether it is met.',
    task: 'Task', state: 'State', rpo: 'RPO', rto: 'RTO',
    level: { breach: 'breached', unproven: 'not proven', ok: 'met' },
    rpoBreach: 'objective {{hours}} h, last good backup {{since}} h ago', rpoNever: 'objective {{hours}} h, never succeeded',
    rpoOk: 'met', rpoNone: '—',
    rtoMeasured: 'objective {{minutes}} min, measured {{measured}} min', rtoUnmeasured: 'objective {{minutes}} min, no recent measurement (older than {{days}} days or none)',
    lastGood: 'Last good backup', evidence: 'Verification #{{id}}', allMet: 'Every objective is met.',
  },
  cluster: {
    title: 'Cluster', master: 'Master {{version}}', online: '{{count}} online', offline: '{{count}} offline', outdated: '{{count}} outdated agents',
    node: 'Node', status: 'Status', version: 'Agent version', lastSeen: 'Last seen', tasks: 'Tasks', local: 'master', outdatedBadge: 'outdated',
    empty: 'No nodes yet.',
  },
  breakdown: { title: 'Breakdown', byType: 'Tasks by type', byStatus: 'Runs by status', byNode: 'Tasks by node', byStorage: 'Artifacts by target', count: 'Count', empty: 'Nothing to show.' },
  nodes: {
    title: 'Node performance', node: 'Node', runs: 'Runs', success: 'Succeeded', failed: 'Failed', rate: 'Success rate', bytes: 'Stored',
    avg: 'Average duration', empty: 'No runs in this period.',
  },
  running: {
    title: 'Running now', empty: 'Nothing is running.', queued: 'Queued', started: 'started', progressLabel: 'Progress of {{name}}',
    progress: '{{read}} read · {{speed}}/s', open: 'Open the run of {{name}}',
  },
  recent: { title: 'Latest runs', task: 'Task', status: 'Status', size: 'Size', when: 'Started', empty: 'No runs yet.' },
  start: {
    title: 'Get started', intro: 'Three steps to your first backup:', done: 'Done',
    steps: {
      target: { title: 'Add a storage target', hint: 'Where backups are kept: a local folder, S3, SFTP, any rclone remote…', action: 'Add a target' },
      task: { title: 'Create a backup task', hint: 'What to back up (folders, databases), when, and for how long to keep it.', action: 'Create a task' },
      run: { title: 'Run it', hint: 'Run the task now from its page and watch the log, or wait for its schedule.', action: 'Open tasks' },
    },
    viewer: 'An operator or administrator can do these steps.',
  },
} as const;
