/** The console page Google sends the browser back to (routes.tsx mounts it); the master's own page is the server default. */
export const CONSOLE_CALLBACK_PATH = '/targets/google-drive/callback';
export const MASTER_CALLBACK_PATH = '/storage-targets/google-drive/callback';
