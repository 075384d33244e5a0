import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/core';
import type { Config } from '../../config/config.ts';
import type { Clock } from '../../lib/clock.ts';
import type { LoginLanes } from '../../auth/login-lanes.ts';
import type { LoginLimiter } from '../../auth/login-limiter.ts';
import { trustedClientOf, type ClientCredentials, type TrustedClient } from '../../auth/login-devices.ts';
import { AggregateSql, num, timeOf } from '../../db/aggregate-sql.ts';
import { AppError } from '../../http/app-error.ts';
import type { AuditWriter } from '../../events/audit-writer.ts';
import type { Alerts } from '../../notifications/alerts.ts';
import { accountAttackAlert } from './account-attack-alert.ts';

/** The client of a sign-in attempt: where it comes from and what may make it trusted. */
export interface AttemptClient extends ClientCredentials {
  ip: string;
  userAgent: string;
}

/** What a failed attempt was refused with, when it counts as a failed sign-in. */
const COUNTED = new Set(['AUTH_INVALID_CREDENTIALS', 'AUTH_2FA_INVALID', 'AUTH_2FA_REQUIRED']);

/** The table of each kind of trusted client's credential. */
const DEVICE_TABLE = { device: 'login_devices', trusted_device: 'trusted_devices' } as const;

/**
 * The cap on failed sign-ins to one account (NIST SP 800-63B 5.2.2), shared by every master:
 * the failures in a row and the lock live on the user row.
 *
 * - Every attempt on an account runs in a lane (core/auth/login-lanes.ts), one at a time across
 *   masters: the account's lane for an unknown client, its own lane for a trusted client (so an
 *   attacker's queue never delays the owner).
 * - An attempt waits the slow-down its lane has earned (LoginLimiter.delayAfter) over the
 *   failures in a row it reads when it starts: the account's, or the trusted client's own.
 * - At `loginLockoutThreshold` failures in a row, the account is locked for `loginLockoutSeconds`
 *   against every client but its trusted ones (429 AUTH_ACCOUNT_LOCKED), audited and announced
 *   (`account_attack`). A trusted client (core/auth/login-devices.ts) still signs in, so an
 *   attacker cannot lock the owner out; its failures count against the account and against
 *   itself, and at `loginDeviceMaxFailures` in a row it stops being trusted (OWASP's device cookies).
 * - A full sign-in clears the failures of the client, and the account's when it is not locked:
 *   the lock ends only by its cool-down or an admin's unlock, whoever signs in meanwhile.
 */
export class AccountLockout {
  readonly #em: EntityManager;
  readonly #lanes: LoginLanes;
  readonly #limiter: LoginLimiter;
  readonly #config: Config;
  readonly #clock: Clock;
  readonly #audit: AuditWriter;
  readonly #alerts: Alerts;
  /**
   * The number of this request's failed attempt in its lane's run of failures, as read when the
   * attempt entered the lane (1 for the first): the audit writes it. Serialised attempts read
   * 1, 2, 3 ...; two that overlapped would read the same number.
   */
  lastFailure: number | undefined;

  constructor(deps: {
    em: EntityManager;
    loginLanes: LoginLanes;
    loginLimiter: LoginLimiter;
    config: Config;
    clock: Clock;
    audit: AuditWriter;
    alerts: Alerts;
  }) {
    this.#em = deps.em;
    this.#lanes = deps.loginLanes;
    this.#limiter = deps.loginLimiter;
    this.#config = deps.config;
    this.#clock = deps.clock;
    this.#audit = deps.audit;
    this.#alerts = deps.alerts;
  }

  /**
   * Runs one sign-in attempt on this account in its lane. `completes`: whether success is a whole
   * sign-in, which clears the failures (a password step that a code or a passkey must follow,
   * as for `otp/send`, clears nothing: else it would reset the count between guessed codes).
   */
  async attempt<T>(
    user: { id: number; username: string },
    client: AttemptClient,
    completes: boolean,
    work: () => Promise<T>,
  ): Promise<T> {
    const trusted = await trustedClientOf(this.#em, user.id, client, this.#clock.now());
    if (!trusted)
      return this.#lanes.run(`account:${user.id}`, () => this.#inLane(user, client, undefined, completes, work));
    return this.#lanes.run(`${trusted.kind}:${trusted.id}`, async () => {
      const failures = await this.#deviceFailures(trusted);
      // Revoked while this attempt waited (its own failures): it is an unknown client again, in the account's lane.
      if (failures === undefined)
        return this.#lanes.run(`account:${user.id}`, () => this.#inLane(user, client, undefined, completes, work));
      return this.#inLane(user, client, { ...trusted, failures }, completes, work);
    });
  }

  /**
   * Refuses an unknown client while the account is locked, without counting anything: for sign-ins
   * that nobody can guess (a passwordless passkey) but that must not open a locked account to a stranger.
   */
  async refuseIfLocked(user: { id: number; username: string }, client: AttemptClient): Promise<void> {
    const now = this.#clock.now();
    const { lockedUntil } = await this.#state(user.id);
    if (!lockedUntil || lockedUntil <= now) return;
    if (await trustedClientOf(this.#em, user.id, client, now)) return;
    throw locked(lockedUntil, now);
  }

  /**
   * A wrong current password asked by an account route of a signed-in session: it counts against
   * the account like a failed sign-in (and can lock it), but the session is not refused by a lock.
   */
  async countFailure(user: { id: number; username: string }, client: AttemptClient): Promise<void> {
    await this.#failed(user, client, undefined);
  }

  /** An admin lifts the lock and clears the failures; whether the account was locked. */
  async unlock(userId: number): Promise<boolean> {
    const sql = new AggregateSql(this.#em);
    const { lockedUntil } = await this.#state(userId);
    await sql.run('update users set failed_login_count = 0, locked_until = null where id = ?', [userId]);
    return lockedUntil !== null && lockedUntil > this.#clock.now();
  }

  async #inLane<T>(
    user: { id: number; username: string },
    client: AttemptClient,
    trusted: (TrustedClient & { failures: number }) | undefined,
    completes: boolean,
    work: () => Promise<T>,
  ): Promise<T> {
    const now = this.#clock.now();
    let { failures, lockedUntil } = await this.#state(user.id);
    if (lockedUntil && lockedUntil <= now) {
      await this.#coolDownEnded(user, client, now);
      failures = 0;
      lockedUntil = null;
    }
    if (lockedUntil && !trusted) throw locked(lockedUntil, now);
    const seen = trusted ? trusted.failures : failures;
    const delay = this.#limiter.delayAfter(seen);
    if (delay > 0) await sleep(delay);
    let result: T;
    try {
      result = await work();
    } catch (err) {
      if (err instanceof AppError && COUNTED.has(err.code)) {
        this.lastFailure = seen + 1;
        await this.#failed(user, client, trusted);
      }
      throw err;
    }
    if (completes) await this.#succeeded(user.id, trusted, lockedUntil !== null);
    return result;
  }

  async #state(userId: number): Promise<{ failures: number; lockedUntil: Date | null }> {
    const [row] = await new AggregateSql(this.#em).rows<{ failed_login_count: unknown; locked_until: unknown }>(
      'select failed_login_count, locked_until from users where id = ?',
      [userId],
    );
    return { failures: num(row?.failed_login_count), lockedUntil: timeOf(row?.locked_until) };
  }

  async #deviceFailures(trusted: TrustedClient): Promise<number | undefined> {
    const [row] = await new AggregateSql(this.#em).rows<{ failures: unknown }>(
      `select failures from ${DEVICE_TABLE[trusted.kind]} where id = ?`,
      [trusted.id],
    );
    return row ? num(row.failures) : undefined;
  }

  /** One more failure in a row: the account's (locking it at the cap) and the trusted client's (revoking it at its cap). */
  async #failed(
    user: { id: number; username: string },
    client: AttemptClient,
    trusted: TrustedClient | undefined,
  ): Promise<void> {
    const sql = new AggregateSql(this.#em);
    const now = this.#clock.now();
    // An increment in the statement, not a write of what was read: a trusted client's lane runs beside the account's.
    const [row] = await sql.rows<{ failed_login_count: unknown }>(
      'update users set failed_login_count = failed_login_count + 1 where id = ? returning failed_login_count',
      [user.id],
    );
    const failures = num(row?.failed_login_count);
    if (failures >= this.#config.loginLockoutThreshold) {
      const until = new Date(now.getTime() + this.#config.loginLockoutSeconds * 1000);
      const lockedNow = await sql.run(
        'update users set locked_until = ? where id = ? and (locked_until is null or locked_until <= ?)',
        [sql.time(until), user.id, sql.time(now)],
      );
      if (lockedNow > 0) await this.#announceLock(user, client, failures, until);
    }
    if (trusted) {
      const table = DEVICE_TABLE[trusted.kind];
      const [device] = await sql.rows<{ failures: unknown }>(
        `update ${table} set failures = failures + 1 where id = ? returning failures`,
        [trusted.id],
      );
      if (device && num(device.failures) >= this.#config.loginDeviceMaxFailures) {
        await sql.run(`delete from ${table} where id = ?`, [trusted.id]);
        await this.#auditAccount(
          user,
          client,
          'trusted_client_revoked',
          `${trusted.kind === 'device' ? 'login_device' : 'trusted_device'}, failures=${num(device.failures)}`,
        );
      }
    }
  }

  async #succeeded(userId: number, trusted: TrustedClient | undefined, accountLocked: boolean): Promise<void> {
    const sql = new AggregateSql(this.#em);
    if (trusted) await sql.run(`update ${DEVICE_TABLE[trusted.kind]} set failures = 0 where id = ?`, [trusted.id]);
    if (!accountLocked)
      await sql.run(
        'update users set failed_login_count = 0 where id = ? and failed_login_count <> 0 and locked_until is null',
        [userId],
      );
  }

  /** An audit entry about the account a sign-in attempt was on, from the attempt's client. */
  async #auditAccount(
    user: { id: number; username: string },
    client: AttemptClient,
    action: string,
    detail: string,
  ): Promise<void> {
    await this.#audit.record(
      { principal: null, clientIp: client.ip, username: user.username },
      { category: 'auth', action, targetType: 'user', targetId: user.id, targetName: user.username, detail },
    );
  }

  /** The first attempt after a lock's cool-down: the account starts afresh, and the audit says so. */
  async #coolDownEnded(user: { id: number; username: string }, client: AttemptClient, now: Date): Promise<void> {
    const sql = new AggregateSql(this.#em);
    const ended = await sql.run(
      'update users set failed_login_count = 0, locked_until = null where id = ? and locked_until <= ?',
      [user.id, sql.time(now)],
    );
    if (ended > 0) await this.#auditAccount(user, client, 'account_unlocked', 'cool-down over');
  }

  async #announceLock(
    user: { id: number; username: string },
    client: AttemptClient,
    failures: number,
    until: Date,
  ): Promise<void> {
    await this.#auditAccount(user, client, 'account_locked', `failures=${failures}, until=${until.toISOString()}`);
    await this.#alerts.raise(
      accountAttackAlert({
        userId: user.id,
        username: user.username,
        failures,
        lockedUntil: until,
        clientIp: client.ip,
      }),
    );
  }
}

function locked(until: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
  return new AppError('AUTH_ACCOUNT_LOCKED', {
    headers: { 'retry-after': String(seconds) },
    details: { retryAfterSeconds: seconds },
  });
}
