import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

// Built into web/dist and served by the service itself (src/platform/web/web.routes.ts): same origin, no CORS.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The CSP allows no inline script; keep Vite from inlining anything into index.html.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
  server: {
    // `npx vite web` during development: the API runs on the usual port.
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/admin/api': 'http://127.0.0.1:8080',
      '/mailboxes': 'http://127.0.0.1:8080',
      '/public': 'http://127.0.0.1:8080',
      '/go': 'http://127.0.0.1:8080',
    },
  },
});
