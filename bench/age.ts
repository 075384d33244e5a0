import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { generateIdentity, identityToRecipient } from '../core/engine/stream/age-identity.ts';
import { encryptStream } from '../core/engine/stream/encryption.ts';
import { machine } from './backup-files.ts';

/**
 * age encryption throughput: the native stream (`core/engine/stream/age-native.ts`, node:crypto) against
 * the pure-JS `age-encryption` package (a dev dependency, used only here and in tests) on the same
 * bytes, streamed in 1 MiB chunks. Size: BACKPLANE_BENCH_AGE_MB (256 by default). Best of 3.
 */
export async function benchAge(): Promise<void> {
  const mb = Number(process.env.BACKPLANE_BENCH_AGE_MB ?? 256);
  const chunk = randomBytes(1024 * 1024);
  const source = () =>
    Readable.from(
      (function* () {
        for (let i = 0; i < mb; i++) yield chunk;
      })(),
    );
  const identity = generateIdentity();
  const recipient = identityToRecipient(identity);
  const { Encrypter } = await import('age-encryption');

  const native = async (): Promise<void> => {
    await pipeline(source(), encryptStream(recipient), new Writable({ write: (_c, _e, cb) => cb() }));
  };
  const pureJs = async (): Promise<void> => {
    const e = new Encrypter();
    e.addRecipient(recipient);
    const out = await e.encrypt(Readable.toWeb(source()) as ReadableStream<Uint8Array>);
    for await (const _ of out) {
      /* drain */
    }
  };
  const best = async (run: () => Promise<void>): Promise<number> => {
    let min = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await run();
      min = Math.min(min, performance.now() - t0);
    }
    return min / 1000;
  };
  console.log(`${mb} MiB, ${machine()}`);
  const n = await best(native);
  const p = await best(pureJs);
  console.log(`native (age-native.ts):   ${n.toFixed(2)} s, ${(mb / n).toFixed(0)} MiB/s`);
  console.log(`age-encryption (pure JS): ${p.toFixed(2)} s, ${(mb / p).toFixed(0)} MiB/s`);
  console.log(`native is ${(p / n).toFixed(1)}x faster`);
}
