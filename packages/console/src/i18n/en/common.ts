/** English text shared by every page (i18next namespace `common`). */
export default {
  appName: 'Backplane',
  nav: {
    dashboard: 'Dashboard', tasks: 'Backup tasks', records: 'Backup records', restores: 'Restores', verifications: 'Verifications',
    replications: 'Replications', targets: 'Storage targets', nodes: 'Nodes', notifications: 'Notifications', templates: 'Task templates',
    users: 'Users', apiKeys: 'API keys', account: 'Account security', audit: 'Audit log', settings: 'Settings', compliance: 'Compliance report',
    main: 'Main navigation', groupBackup: 'Backup', groupInfrastructure: 'Infrastructure', groupAdmin: 'Administration',
  },
  actions: {
    save: 'Save', cancel: 'Cancel', delete: 'Delete', edit: 'Edit', create: 'Create', close: 'Close', confirm: 'Confirm', refresh: 'Refresh',
    test: 'Test', copy: 'Copy', copied: 'Copied', logout: 'Log out', search: 'Search', back: 'Back', download: 'Download', retry: 'Try again',
  },
  search: { placeholder: 'Search tasks, records, targets, nodes…', nothing: 'Nothing found', shortcut: 'Press / or Ctrl+K to search' },
  error: { title: 'Something went wrong', code: 'Error code: {{code}}' },
  empty: { nothing: 'Nothing here yet.' },
  loading: 'Loading…',
  confirmDelete: 'Delete {{name}}? This cannot be undone.',
  yes: 'Yes', no: 'No', never: 'never', none: 'none', unknown: 'unknown',
  theme: { toggle: 'Toggle colour scheme' },
  menu: { open: 'Open navigation' },
  routeError: { title: 'This page could not be shown', body: 'If Backplane was upgraded while this tab was open, reloading fetches the new version.', reload: 'Reload' },
  notFound: { title: 'Page not found', body: 'There is no page at this address.', home: 'Go to the dashboard' },
} as const;
