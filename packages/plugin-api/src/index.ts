/** The Backplane plugin API: what a plugin imports to define itself and its providers. */
export * from './contracts.ts';
export * from './define-plugin.ts';
export * from './config-fields.ts';
export * from './object-keys.ts';
export * from './tool-process.ts';
export * from './tool-env.ts';
export * from './secret-file.ts';
export * from './disk-usage.ts';
export * from './config-aliases.ts';
export * from './notify-http.ts';
export * from './notify-format.ts';
