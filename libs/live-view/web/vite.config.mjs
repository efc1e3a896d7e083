// The live view's page: Preact, bundled by Vite 7 (esbuild turns the TSX into Preact calls; no React plugin needed).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  logLevel: 'warn',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 200 },
});
