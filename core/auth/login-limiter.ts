import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../http/app-error.ts';

export interface LoginLimits { perIpPoints: number; perIpSeconds: number; perAccountFailures: number; perAccountSeconds: number }

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perIpPoints: 30, perIpSeconds: 60, perAccountFailures: 10, perAccountSeconds: 15 * 60 };

/**
 * Brute-force protection for login and the other pre-authentication endpoints:
 * every attempt from one IP counts, and failed attempts against one account count
 * whichever IP they come from (a distributed guess at one password is caught too).
 */
export class LoginLimiter {
  readonly #ip: RateLimiterMemory;
  readonly #account: RateLimiterMemory;

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.#ip = new RateLimiterMemory({ keyPrefix: 'login-ip', points: limits.perIpPoints, duration: limits.perIpSeconds });
    this.#account = new RateLimiterMemory({ keyPrefix: 'login-account', points: limits.perAccountFailures, duration: limits.perAccountSeconds });
  }

  /**
   * Counts one attempt from this IP and refuses if the IP or the account is over its limit.
   * With an account, the attempt is counted as a failure up front and only `succeeded` clears it:
   * checking first and counting after the (slow) password check would let a burst of concurrent
   * guesses all pass the check before any failure was recorded.
   */
  async attempt(ip: string, account: string | undefined): Promise<void> {
    const accountKey = account?.toLowerCase();
    if (accountKey !== undefined) {
      try {
        await this.#account.consume(accountKey);
      } catch (err) {
        if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext);
        throw err;
      }
    }
    try {
      await this.#ip.consume(ip);
    } catch (err) {
      // Refused before the password was tried: not a failure against the account.
      if (accountKey !== undefined) await this.#account.reward(accountKey, 1);
      if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext);
      throw err;
    }
  }

  /**
   * Clears the account's failures. The IP budget is deliberately not reset: otherwise one valid
   * account would let its holder reset the budget between guesses at other accounts.
   */
  async succeeded(_ip: string, account: string): Promise<void> {
    await this.#account.delete(account.toLowerCase());
  }
}

function limited(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError('AUTH_RATE_LIMITED', { headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } });
}
