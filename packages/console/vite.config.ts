// The console is served by `tapproof serve` under /console/ (src/http/console.ts): every asset URL
// carries that base, file names carry a content hash (cached for a year), and nothing is inlined into
// index.html so that the server's Content-Security-Policy can forbid inline scripts and styles.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    chunkSizeWarningLimit: 200,
  },
});
