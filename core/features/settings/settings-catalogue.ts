/**
 * The settings an admin may read and write. Values are strings on the wire (as in the
 * reference); each key validates its own value. Secret keys are sealed at rest and only
 * ever returned masked.
 */
export interface SettingDef {
  default: string;
  /** How a client should edit the value (all values travel as strings). */
  kind: 'text' | 'boolean' | 'integer' | 'url' | 'timezone' | 'language' | 'rate';
  /** What the setting does, for catalogues and forms. */
  description: string;
  secret?: boolean;
  /**
   * Why the setting has no effect yet: any value but the default is refused (400
   * SETTINGS_UNSUPPORTED) rather than stored and silently ignored.
   */
  notYet?: string;
  /** Returns an error message, or undefined when the value is acceptable. */
  validate(value: string): string | undefined;
}

export const MASK = '********';

const isBool = (v: string) => (v === 'true' || v === 'false' ? undefined : 'must be "true" or "false"');
const isUrlOrEmpty = (v: string) => {
  if (v === '') return undefined;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? undefined : 'must be an http(s) URL';
  } catch {
    return 'must be an http(s) URL';
  }
};
const intRange = (min: number, max: number) => (v: string) =>
  /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max ? undefined : `must be an integer from ${min} to ${max}`;
const maxLen = (n: number) => (v: string) => (v.length <= n ? undefined : `must be at most ${n} characters`);
const timezone = (v: string) => {
  if (v === '') return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: v });
    return undefined;
  } catch {
    return 'must be an IANA time zone such as Europe/Berlin';
  }
};

export const SETTINGS: Record<string, SettingDef> = {
  site_name: {
    default: 'Backplane',
    kind: 'text',
    description: "The installation's name, stored for clients.",
    validate: maxLen(128),
  },
  language: {
    default: 'en',
    kind: 'language',
    description: 'The preferred language (a tag such as en or zh-CN), stored for clients.',
    validate: (v) => (/^[a-z]{2}(-[A-Z]{2})?$/.test(v) ? undefined : 'must be a language tag such as en or zh-CN'),
  },
  timezone: {
    default: '',
    kind: 'timezone',
    description: "The zone cron schedules and maintenance windows are read in; empty: the server's own.",
    validate: timezone,
  },
  backup_notification_enabled: {
    default: 'true',
    kind: 'boolean',
    description: 'Send backup results to the notification channels.',
    validate: isBool,
  },
  bandwidth_limit: {
    default: '',
    kind: 'rate',
    description: 'A bandwidth limit for the whole installation.',
    notYet: 'a bandwidth limit for the whole installation is not implemented; set bandwidthLimit on a node instead',
    validate: (v) =>
      /^(\d+(\.\d+)?[KMG]?)?$/.test(v)
        ? undefined
        : 'must be empty or a rate such as 512K, 10M or 1G (bytes per second)',
  },
  audit_webhook_url: {
    default: '',
    kind: 'url',
    description: 'Every audit entry is also posted to this URL (signed with the audit webhook secret); empty: off.',
    validate: (v) => maxLen(2048)(v) ?? isUrlOrEmpty(v),
  },
  audit_webhook_secret: {
    default: '',
    kind: 'text',
    description: "The key that signs the audit webhook's requests.",
    secret: true,
    validate: maxLen(256),
  },
  audit_retention_days: {
    default: '0',
    kind: 'integer',
    description: 'Audit entries older than this many days are deleted; 0 keeps them all.',
    validate: intRange(0, 36500),
  },
  /** Administrators must have a second factor; after the grace period their sessions only open enrolment. */
  mfa_required_for_admins: {
    default: 'false',
    kind: 'boolean',
    description: 'Administrators must use a second factor; after the grace period their sessions only open enrolment.',
    validate: isBool,
  },
  mfa_enrollment_grace_days: {
    default: '7',
    kind: 'integer',
    description: 'Days an administrator without a second factor has to enrol one.',
    validate: intRange(0, 90),
  },
  /** A passkey that verified its user (PIN, biometrics) may log in without the password. */
  passkey_passwordless_login: {
    default: 'false',
    kind: 'boolean',
    description: 'A passkey that verified its user (PIN, biometrics) may sign in without the password.',
    validate: isBool,
  },
};
