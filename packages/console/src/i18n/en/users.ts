/** English text of the console's users pages (i18next namespace `users`). */
export default {
  list: {
    title: 'Users', description: 'Who can sign in, with which role. Operators change things; viewers only read.',
    create: 'Add user', empty: 'No users besides you.', emptyHint: 'Add a user for each person who needs the console.',
    user: 'User', contact: 'Contact', role: 'Role', status: 'Status', secondFactor: 'Second factor', created: 'Created', actions: 'Actions',
    you: 'you', active: 'active', disabled: 'disabled', none: 'none',
    factors: { totp: 'authenticator', passkeys: '{{count}} passkeys', email: 'email code', sms: 'SMS code', recovery: '{{count}} recovery codes left' },
  },
  roles: { admin: 'admin', operator: 'operator', viewer: 'viewer' },
  actions: {
    edit: 'Edit {{name}}', disable: 'Disable', enable: 'Enable', reset2fa: 'Reset second factor', delete: 'Delete', more: 'Actions for {{name}}',
  },
  confirm: {
    disable: 'Disable {{name}}? Their sessions end at once and they cannot sign in until enabled again.',
    reset2fa: 'Remove every second factor of {{name}} (authenticator, recovery codes, passkeys, trusted devices, email and SMS codes)? Their sessions stay open.',
    delete: 'Delete {{name}}? Their second factors are deleted too. This cannot be undone.',
  },
  done: { created: 'User {{name}} created.', saved: 'User {{name}} saved.', disabled: '{{name}} disabled.', enabled: '{{name}} enabled.', reset2fa: 'Second factors of {{name}} removed.', deleted: 'User {{name}} deleted.' },
  form: {
    createTitle: 'Add user', editTitle: 'Edit {{name}}', username: 'Username', displayName: 'Display name', displayNameHint: 'Defaults to the username.',
    email: 'Email', emailHint: 'Used for email sign-in codes.', phone: 'Phone', phoneHint: 'Used for SMS sign-in codes.', role: 'Role',
    password: 'Password', passwordEdit: 'New password', passwordEditHint: 'Leave empty to keep the current one. A new password ends the user’s sessions.',
    roleHint: 'Changing the role ends the user’s sessions.',
    errors: { username: '3 to 64 characters: letters, digits, . _ @ - (not first).', password: '8 to 128 characters.', email: 'Not an email address.' },
  },
  keys: {
    title: 'API keys', description: 'Keys for scripts and other programs. A key acts with its role, never beyond the rights of the admin who made it.',
    create: 'Create API key', empty: 'No API keys.', emptyHint: 'Create a key for each program that calls the API, with the smallest role it needs.',
    name: 'Name', role: 'Role', state: 'State', prefix: 'Key starts with', createdBy: 'Created by', lastUsed: 'Last used', expires: 'Expires', never: 'never',
    states: { active: 'enabled', disabled: 'disabled', expired: 'expired' },
    toggleOn: 'Enable', toggleOff: 'Disable', delete: 'Delete', toggleLabel: 'Enabled: {{name}}',
    confirmDelete: 'Delete the key {{name}}? Programs using it stop working at once.',
    form: { title: 'Create API key', name: 'Name', nameHint: 'What uses it, e.g. "nightly report script".', role: 'Role', lifetime: 'Expires', submit: 'Create key' },
    lifetimes: { never: 'Never', days: 'After {{count}} days' },
    shown: {
      title: 'Your new API key', warning: 'Copy it now: this is the only time it is shown. Backplane keeps only its hash; a lost key cannot be recovered, only replaced.',
      label: 'API key', usage: 'Send it as the header Authorization: Bearer <key> or X-API-Key: <key>.', copied: 'I have copied it',
    },
    done: { created: 'API key {{name}} created.', enabled: 'API key {{name}} enabled.', disabled: 'API key {{name}} disabled.', deleted: 'API key {{name}} deleted.' },
  },
} as const;
