import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../http/app-error.ts';

export interface LoginLimits {
  /** Every attempt from one client IP, whatever the account. */
  perIpPoints: number;
  perIpSeconds: number;
  /** Failed attempts against one account from one client IP. */
  perAccountIpFailures: number;
  perAccountIpSeconds: number;
  /** Failed attempts against one account from anywhere: beyond the free ones, each answer is delayed, never refused. */
  accountFreeFailures: number;
  accountSeconds: number;
  /** The first delay; it doubles with each further failure up to the maximum. */
  accountDelayMs: number;
  accountMaxDelayMs: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perIpPoints: 30,
  perIpSeconds: 60,
  perAccountIpFailures: 10,
  perAccountIpSeconds: 15 * 60,
  accountFreeFailures: 5,
  accountSeconds: 15 * 60,
  accountDelayMs: 250,
  accountMaxDelayMs: 8_000,
};

/** Larger than any number of failures a window can hold: the account-wide counter only measures. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/**
 * Brute-force protection for login and the other pre-authentication endpoints.
 * Refusals are scoped to the client: every attempt from one IP counts, and failures against one
 * account count per IP. Failures against one account from anywhere slow its answers down instead:
 * a refusal there would let anyone lock the owner out (a denial of service), a bounded delay only
 * makes a distributed guess slower while the right password still logs in from a fresh address.
 */
export class LoginLimiter {
  readonly #limits: LoginLimits;
  readonly #ip: RateLimiterMemory;
  readonly #accountIp: RateLimiterMemory;
  readonly #account: RateLimiterMemory;

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.#limits = limits;
    this.#ip = new RateLimiterMemory({
      keyPrefix: 'login-ip',
      points: limits.perIpPoints,
      duration: limits.perIpSeconds,
    });
    this.#accountIp = new RateLimiterMemory({
      keyPrefix: 'login-account-ip',
      points: limits.perAccountIpFailures,
      duration: limits.perAccountIpSeconds,
    });
    this.#account = new RateLimiterMemory({
      keyPrefix: 'login-account',
      points: UNBOUNDED,
      duration: limits.accountSeconds,
    });
  }

  /**
   * Counts one attempt from this IP and refuses if the IP, or this account from this IP, is over
   * its limit; otherwise waits the account's slow-down delay and returns it (milliseconds).
   * With an account, the attempt is counted as a failure up front and only `succeeded` clears it:
   * checking first and counting after the (slow) password check would let a burst of concurrent
   * guesses all pass the check before any failure was recorded.
   */
  async attempt(ip: string, account: string | undefined): Promise<number> {
    await this.admit(ip, account);
    return account === undefined ? 0 : this.slowDown(account);
  }

  /**
   * The refusals scoped to the client alone: the IP's budget and, with an account, this account's
   * failures from this IP (counted up front, as in `attempt`). Sign-ins to an existing account take
   * their slow-down from the account's failures in the database instead (AccountLockout).
   */
  async admit(ip: string, account: string | undefined): Promise<void> {
    await consumeOrRefuse(this.#ip, ip);
    if (account !== undefined) await consumeOrRefuse(this.#accountIp, pairKey(account, ip));
  }

  /** Counts a failure against the account in this process's memory and waits the delay it earns; returns it (ms). */
  async slowDown(account: string): Promise<number> {
    const counted = await this.#account.consume(account.toLowerCase());
    const delay = this.delayAfter(counted.consumedPoints - 1);
    if (delay > 0) await sleep(delay);
    return delay;
  }

  /** The delay for an attempt that follows this many recent failures against its account. */
  delayAfter(failures: number): number {
    const { accountFreeFailures, accountDelayMs, accountMaxDelayMs } = this.#limits;
    const over = failures - accountFreeFailures;
    if (over < 0) return 0;
    return Math.min(accountMaxDelayMs, accountDelayMs * 2 ** Math.min(over, 30));
  }

  /**
   * Clears the account's failures. The IP budget is deliberately not reset: otherwise one valid
   * account would let its holder reset the budget between guesses at other accounts.
   */
  async succeeded(ip: string, account: string): Promise<void> {
    await this.#accountIp.delete(pairKey(account, ip));
    await this.#account.delete(account.toLowerCase());
  }
}

function pairKey(account: string, ip: string): string {
  // JSON keeps the two parts apart whatever characters the username holds.
  return JSON.stringify([account.toLowerCase(), ip]);
}

async function consumeOrRefuse(limiter: RateLimiterMemory, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext);
    throw err;
  }
}

function limited(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError('AUTH_RATE_LIMITED', {
    headers: { 'retry-after': String(seconds) },
    details: { retryAfterSeconds: seconds },
  });
}
