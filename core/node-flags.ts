/**
 * Node flags the master runs with (`npm start`, the Dockerfile, benchmarks and process tests):
 * 2 MiB young-generation semi-spaces instead of 16 MiB. The master's work is streaming, whose
 * chunks die young either way; the default size only holds ~50 MiB of resident memory idle.
 * Keep package.json's `start` script and the Dockerfile's ENTRYPOINT in step with this list.
 */
export const MASTER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2'];
