/** English text of the sign-in and first-run pages (i18next namespace `auth`). */
export default {
  setup: {
    title: 'Welcome to Backplane',
    intro: 'Create the first administrator account. You will use it to sign in and to invite others.',
    username: 'Username', displayName: 'Display name (optional)', password: 'Password', confirm: 'Repeat the password',
    passwordHint: 'At least 8 characters.', mismatch: 'The passwords differ.', submit: 'Create administrator',
  },
  login: {
    title: 'Sign in to Backplane', username: 'Username', password: 'Password', submit: 'Sign in',
    secondFactor: 'Second factor', secondFactorIntro: 'This account uses a second factor. Use one of these:',
    code: 'Authenticator code or recovery code', codeHint: 'Six digits from your authenticator app, or a recovery code like ABCD-1234-…',
    rememberDevice: 'Trust this browser for 30 days', deviceName: 'Name of this device',
    passkey: 'Use a passkey', passkeyFailed: 'The passkey was not accepted or the prompt was closed.',
    sendEmail: 'Email me a code', sendSms: 'Text me a code', codeSent: 'A code is on its way.',
    passwordless: 'Sign in with a passkey (no password)', back: 'Use another account',
  },
  enrolment: { title: 'Set up a second factor', body: 'Your administrator requires a second factor: add one in Account security to continue.' },
} as const;
