/**
 * The user form's values to the API's bodies (core/features/users/user-schemas.ts), and the API
 * key form's expiry. Pure: unit-tested.
 */
export type Role = 'admin' | 'operator' | 'viewer';

export interface UserFormValues {
  username: string;
  displayName: string;
  email: string;
  phone: string;
  role: Role;
  password: string;
}

export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]*$/;

/** Error keys (namespace `users`, `form.errors.*`) per field; an edit may leave the password empty. */
export function validateUser(
  v: UserFormValues,
  creating: boolean,
): Partial<Record<keyof UserFormValues, 'username' | 'password' | 'email'>> {
  const errors: Partial<Record<keyof UserFormValues, 'username' | 'password' | 'email'>> = {};
  if (v.username.length < 3 || v.username.length > 64 || !USERNAME_PATTERN.test(v.username))
    errors.username = 'username';
  if ((creating || v.password !== '') && (v.password.length < 8 || v.password.length > 128))
    errors.password = 'password';
  if (v.email !== '' && !/^[^\s@]+@[^\s@]+$/.test(v.email)) errors.email = 'email';
  return errors;
}

/** POST /api/users: empty optional fields left out (the server defaults the display name to the username). */
export function createUserBody(v: UserFormValues) {
  return {
    username: v.username.trim(),
    password: v.password,
    role: v.role,
    ...(v.displayName.trim() ? { displayName: v.displayName.trim() } : {}),
    ...(v.email.trim() ? { email: v.email.trim() } : {}),
    ...(v.phone.trim() ? { phone: v.phone.trim() } : {}),
  };
}

/**
 * PUT /api/users/{id}: only what changed, so the audit trail names real changes and a role or
 * password change (which ends the user's sessions) is sent only when meant. An emptied display
 * name is not sent (the API needs one); an emptied email or phone is (it removes that OTP channel).
 */
export function updateUserBody(before: Omit<UserFormValues, 'password'>, v: UserFormValues) {
  const body: {
    username?: string;
    displayName?: string;
    email?: string;
    phone?: string;
    role?: Role;
    password?: string;
  } = {};
  if (v.username.trim() !== before.username) body.username = v.username.trim();
  if (v.displayName.trim() && v.displayName.trim() !== before.displayName) body.displayName = v.displayName.trim();
  if (v.email.trim() !== before.email) body.email = v.email.trim();
  if (v.phone.trim() !== before.phone) body.phone = v.phone.trim();
  if (v.role !== before.role) body.role = v.role;
  if (v.password !== '') body.password = v.password;
  return body;
}

/** API key lifetimes offered in the form, in hours (0: never expires). */
export const KEY_LIFETIMES = [0, 24 * 30, 24 * 90, 24 * 365] as const;

export type KeyState = 'active' | 'disabled' | 'expired';

export function apiKeyState(key: { disabled: boolean; expired: boolean; expiresAt?: string }, now: number): KeyState {
  if (key.expired || (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now)) return 'expired';
  return key.disabled ? 'disabled' : 'active';
}
