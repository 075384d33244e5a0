import { benchStartup } from './startup.ts';

/** `npm run bench`: every benchmark prints its figures; none asserts timings. */
console.log(`Backplane benchmarks on Node ${process.version}, ${process.platform}/${process.arch}\n`);
console.log('# master start-up and idle memory');
await benchStartup();
