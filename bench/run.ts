import { benchStartup } from './startup.ts';
import { benchStorageLocal } from './storage-local.ts';
import { benchStorageRclone } from './storage-rclone.ts';

/**
 * `npm run bench`: every benchmark prints its figures; none asserts timings.
 * Sizes: BACKPLANE_BENCH_LOCAL_MB and BACKPLANE_BENCH_RCLONE_MB (1024 each by default).
 */
console.log(`Backplane benchmarks on Node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log('# master start-up and idle memory');
await benchStartup();
console.log('\n# local_disk throughput');
await benchStorageLocal();
console.log('\n# rclone throughput');
await benchStorageRclone();
