import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../http/app-error.ts';

export interface LoginLimits { perIpPoints: number; perIpSeconds: number; perAccountFailures: number; perAccountSeconds: number }

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { perIpPoints: 10, perIpSeconds: 60, perAccountFailures: 10, perAccountSeconds: 15 * 60 };

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

  /** Counts one attempt from this IP and refuses if the IP or the account is over its limit. */
  async attempt(ip: string, account: string | undefined): Promise<void> {
    if (account) {
      const state = await this.#account.get(account.toLowerCase());
      if (state && state.remainingPoints <= 0) throw limited(state.msBeforeNext);
    }
    try {
      await this.#ip.consume(ip);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw limited(err.msBeforeNext);
      throw err;
    }
  }

  async failed(account: string): Promise<void> {
    await this.#account.penalty(account.toLowerCase(), 1);
  }

  async succeeded(ip: string, account: string): Promise<void> {
    await Promise.all([this.#ip.delete(ip), this.#account.delete(account.toLowerCase())]);
  }
}

function limited(msBeforeNext: number): AppError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new AppError('AUTH_RATE_LIMITED', { headers: { 'retry-after': String(seconds) }, details: { retryAfterSeconds: seconds } });
}
