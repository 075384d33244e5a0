import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The master serves dist/ at `/` (core/features/console): hashed files under /assets get a long
// cache, index.html none. `npm run dev` proxies the API to a master on :8340 for development.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      output: {
        // Pages load on first visit (each feature's routes.tsx). Library code is grouped so the browser
        // fetches a few cacheable files instead of dozens of fragments: what the first screen needs
        // (React, the router, Query, i18next, the parts of Mantine /login uses), the rest of Mantine and
        // the icons (needed by every signed-in page), and the charts (Recharts; the dashboard only).
        codeSplitting: {
          groups: [
            { name: 'vendor', test: /node_modules[\\/]/, tags: ['$initial'], priority: 3 },
            { name: 'ui', test: /node_modules[\\/](@mantine[\\/](core|hooks)|@floating-ui|@tabler)[\\/]/, priority: 2 },
            { name: 'charts', test: /node_modules[\\/](recharts|@mantine[\\/]charts)[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/install', '/health', '/ready', '/metrics', '/storage-targets'].map((p) => [
        p,
        'http://127.0.0.1:8340',
      ]),
    ),
  },
});
