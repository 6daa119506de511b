// Vite (already the test runner's engine, so no second bundler in the tree) builds src/ into
// dist/: one script, one stylesheet, hashed names, nothing inlined, no external URL. The gateway
// serves dist/ at /dashboard with a CSP that allows only its own origin.
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/dashboard/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No data: URLs for assets and no inline polyfill script: the CSP allows neither.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  logLevel: 'warn',
});
