import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Backoff, retryWithBackoff, sleep } from '../../agent/backoff.ts';

test('ceilings double from 1 s to the 60 s cap; waits stay within [0, ceiling)', () => {
  const b = new Backoff({ random: () => 0.999999 });
  const ceilings: number[] = [];
  for (let i = 0; i < 10; i++) {
    const ceiling = b.ceiling();
    ceilings.push(ceiling);
    const wait = b.next();
    assert.ok(wait >= 0 && wait < ceiling, `${wait} within [0, ${ceiling})`);
  }
  assert.deepEqual(ceilings, [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000, 60000]);
});

test('full jitter: random 0 waits nothing, reset starts over', () => {
  const b = new Backoff({ random: () => 0 });
  assert.equal(b.next(), 0);
  assert.equal(b.next(), 0);
  assert.equal(b.attempt, 2);
  b.reset();
  assert.equal(b.attempt, 0);
  assert.equal(b.ceiling(), 1000);
});

test('wait uses the injected sleep with the jittered delay', async () => {
  const slept: number[] = [];
  const b = new Backoff({
    random: () => 0.5,
    sleep: (ms) => {
      slept.push(ms);
      return Promise.resolve();
    },
  });
  await b.wait();
  await b.wait();
  await b.wait();
  assert.deepEqual(slept, [500, 1000, 2000]);
});

test('an aborted signal ends a wait at once', async () => {
  const b = new Backoff({ initialMs: 60_000, random: () => 0.99 });
  const ac = new AbortController();
  const started = Date.now();
  const waiting = b.wait(ac.signal);
  setTimeout(() => ac.abort(new Error('stop')), 10);
  await assert.rejects(waiting, /stop/);
  assert.ok(Date.now() - started < 5000);
  await assert.rejects(sleep(10, AbortSignal.abort(new Error('already'))), /already/);
});

test('retryWithBackoff retries retryable failures, resets on success and throws the rest', async () => {
  let calls = 0;
  const fast = new Backoff({ sleep: () => Promise.resolve() });
  const value = await retryWithBackoff(
    async () => {
      calls++;
      if (calls < 3) throw Object.assign(new Error('away'), { retry: true });
      return 'ok';
    },
    { backoff: fast, retryable: (e) => (e as { retry?: boolean }).retry === true },
  );
  assert.equal(value, 'ok');
  assert.equal(calls, 3);
  assert.equal(fast.attempt, 0);

  let permanentCalls = 0;
  await assert.rejects(
    retryWithBackoff(
      async () => {
        permanentCalls++;
        throw new Error('no');
      },
      { backoff: fast, retryable: () => false },
    ),
    /no/,
  );
  assert.equal(permanentCalls, 1);

  let bounded = 0;
  await assert.rejects(
    retryWithBackoff(
      async () => {
        bounded++;
        throw new Error('still away');
      },
      { backoff: new Backoff({ initialMs: 5 }), retryable: () => true, deadlineMs: 50 },
    ),
    /still away/,
  );
  assert.ok(bounded >= 2 && bounded < 1000);
});
