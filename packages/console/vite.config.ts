import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The master serves dist/ at `/` (core/features/console): hashed files under /assets get a long
// cache, index.html none. `npm run dev` proxies the API to a master on :8340 for development.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true, assetsDir: 'assets', sourcemap: false, chunkSizeWarningLimit: 2048 },
  server: {
    proxy: Object.fromEntries(['/api', '/install', '/health', '/ready', '/metrics', '/storage-targets'].map((p) => [p, 'http://127.0.0.1:8340'])),
  },
});
