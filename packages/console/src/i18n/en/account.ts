/** English text of the console's account pages (i18next namespace `account`). */
export default {
  title: 'Account security', description: 'Your profile, password, second factors and the browsers you trust.',
  enrolment: {
    requiredTitle: 'Set up a second factor first',
    required: 'Your administrator requires administrators to use a second factor, and the grace period is over. Until you enrol one here (an authenticator app, a passkey, or an email or SMS code), no other page opens. After enrolling you sign in again with it.',
    deadlineTitle: 'A second factor will be required',
    deadline: 'Administrators must enrol a second factor by {{when}}. After that only this page opens until one is enrolled.',
    signInAgain: 'Second factor enrolled. Sign in again with it to open the whole console.',
  },
  profile: {
    title: 'Profile', username: 'Username', displayName: 'Display name', email: 'Email', phone: 'Phone', role: 'Role', created: 'Member since',
    factors: 'Second factors', none: 'none', noneWarning: 'No second factor: anyone with your password can sign in.',
  },
  password: {
    title: 'Password', current: 'Current password', next: 'New password', repeat: 'Repeat the new password', submit: 'Change password',
    hint: 'At least 8 characters. Your other sessions and trusted browsers are signed out.', mismatch: 'The passwords differ.',
    tooShort: 'At least 8 characters.', done: 'Password changed.',
  },
  common: { currentPassword: 'Current password', code: 'Authenticator code', codeHint: 'Six digits from your app, or a recovery code.', on: 'on', off: 'off' },
  totp: {
    title: 'Authenticator app', intro: 'Codes from an app such as Aegis, Google Authenticator or 1Password.', setup: 'Set up authenticator',
    step1: 'Confirm your password to begin.', next: 'Continue',
    step2: 'Scan this QR code with your app, or type the secret, then enter the code it shows.', qrAlt: 'QR code to add Backplane to an authenticator app',
    secret: 'Secret', verify: 'Turn on', enabled: 'Authenticator on. {{count}} recovery codes left.',
    disable: 'Turn off', disableTitle: 'Turn off the authenticator', regenerate: 'New recovery codes', regenerateTitle: 'Replace your recovery codes',
    regenerateHint: 'The old codes stop working.', done: 'Authenticator turned on.', disabled: 'Authenticator turned off.', cancel: 'Cancel',
  },
  codes: {
    title: 'Your recovery codes', warning: 'Keep these somewhere safe: they are shown only now. Each one signs you in once if you lose your authenticator.',
    label: 'Recovery codes', download: 'Download', copy: 'Copy all', close: 'I have saved them',
  },
  otp: {
    title: 'Email and SMS codes', intro: 'A six-digit code sent when you sign in. It needs a notification channel that can deliver it.',
    email: 'Email codes', sms: 'SMS codes', address: 'Email address', phone: 'Phone number', enable: 'Turn on', disable: 'Turn off', save: 'Save',
    stateOn: 'on', stateOff: 'off', done: '{{channel}} turned {{state}}.',
  },
  passkeys: {
    title: 'Passkeys', intro: 'A security key, or your device’s fingerprint, face or PIN.', add: 'Add a passkey', name: 'Name for this passkey',
    namePlaceholder: 'e.g. YubiKey, laptop', register: 'Register', empty: 'No passkeys yet.', created: 'Added', lastUsed: 'Last used',
    verified: 'passwordless', unsupported: 'This browser does not support passkeys.', cancelled: 'The passkey prompt was closed or refused.',
    delete: 'Delete passkey {{name}}', deleteTitle: 'Delete the passkey {{name}}', done: 'Passkey added.', deleted: 'Passkey deleted.',
  },
  devices: {
    title: 'Trusted browsers', intro: 'Browsers where you chose “trust this browser”: they skip the second factor for 30 days.',
    empty: 'No trusted browsers.', name: 'Name', current: 'this browser', lastUsed: 'Last used', expires: 'Expires', ip: 'Last address',
    revoke: 'Revoke', revokeLabel: 'Revoke {{name}}', revoked: 'Trusted browser revoked.', confirm: 'Revoke {{name}}? It will ask for a second factor again.',
  },
} as const;
