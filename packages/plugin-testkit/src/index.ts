/** The Backplane plugin test kit: conformance suites for `node --test`, and a registration helper. */
export * from './storage-contract.ts';
export * from './database-contract.ts';
export * from './notifier-contract.ts';
export * from './register.ts';
