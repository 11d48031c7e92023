import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The console, served by vozgate at /console from dist/console/ (scripts/build.mjs runs this
 * build when console/ changes). `npm run console:dev` serves it with hot reload on :5173 and
 * sends the API's paths (/graphql, /api for the CSV import and exports, ...) to a vozgate on :4000 (VOZGATE_URL to change it).
 */
const api = process.env.VOZGATE_URL ?? 'http://localhost:4000';
const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: '/console/',
  build: {
    outDir: here('../dist/console'),
    emptyOutDir: true,
    // Below this, a separate request costs more than it saves.
    assetsInlineLimit: 4096,
    target: 'es2022',
  },
  server: {
    proxy: {
      '/graphql': { target: api, ws: true, changeOrigin: true },
      '/api': { target: api, changeOrigin: true },
      '/recordings': { target: api, changeOrigin: true },
      '/talk': { target: api, changeOrigin: true },
      '/calls/web': { target: api, ws: true, changeOrigin: true },
    },
  },
});
