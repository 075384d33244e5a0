import type { Alert } from '../../notifications/alert.ts';

/** `account_attack`: an account reached the cap of failed sign-ins and is locked against unknown clients. */
export function accountAttackAlert(input: {
  userId: number;
  username: string;
  failures: number;
  lockedUntil: Date;
  clientIp: string;
}): Alert {
  const until = input.lockedUntil.toISOString();
  return {
    type: 'account_attack',
    subject: `user:${input.userId}`,
    title: `Account ${input.username} locked after ${input.failures} failed sign-ins`,
    body:
      `${input.failures} sign-ins to the account ${input.username} failed in a row (the last from ${input.clientIp}): ` +
      `someone may be guessing its password or second factor. Until ${until} only clients on which the account ` +
      'signed in before can sign in to it. An admin can lift the lock sooner (POST /api/users/' +
      `${input.userId}/unlock); the audit log (category auth) lists the attempts.`,
    fields: {
      userId: input.userId,
      username: input.username,
      failures: input.failures,
      lockedUntil: until,
      clientIp: input.clientIp,
    },
  };
}
