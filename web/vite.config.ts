import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The agent console: a static single-page app, built into web/dist and served by the api node at `/`.
// In development (`npx vite web`), API calls are proxied to a server on ATENDE_DEV_API (default :3000).
const root = fileURLToPath(new URL('.', import.meta.url));
const api = process.env.ATENDE_DEV_API ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root,
  base: '/',
  // No source maps: the console's source is not published (docs/adr/0023-browser-protections.md).
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 800 },
  oxc: { jsx: { runtime: 'automatic' } },
  server: {
    proxy: Object.fromEntries(['/api', '/auth', '/console.json'].map((p) => [p, api])),
  },
});
