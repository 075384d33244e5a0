import type { StorageInstance, TestResult } from '@backplane/plugin-api';
import { trimReason } from './target-opener.ts';

/** A test that outlives this is reported as failed: a wrong host must never hang a request. */
export const TEST_TIMEOUT_MS = 30_000;

/** Tests a provider instance's connection within a bounded time, then closes it. */
export async function testInstance(instance: StorageInstance, timeoutMs = TEST_TIMEOUT_MS): Promise<TestResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<TestResult>((resolve) => {
    timer = setTimeout(
      () => resolve({ success: false, message: `no answer within ${Math.round(timeoutMs / 1000)} s` }),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([
      instance.testConnection().catch((err: unknown) => ({ success: false, message: trimReason(err) })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    await instance.close?.().catch(() => undefined);
  }
}
