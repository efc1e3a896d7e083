#!/usr/bin/env node
// Builds the live view's page: `node libs/live-view/web/build.mjs [--out-dir=DIR]` (default dist/live-view/web).
// Run by the nx targets live-view:build-web (before the lib's tests and build) and by the manager when
// --live-view-address is set and the page is missing.
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const out = process.argv
  .slice(2)
  .find((a) => a.startsWith('--out-dir='))
  ?.slice('--out-dir='.length);
const bad = process.argv.slice(2).filter((a) => !a.startsWith('--out-dir='));
if (bad.length > 0) {
  process.stderr.write(`error: unknown argument ${bad[0]} (usage: build.mjs [--out-dir=DIR])\n`);
  process.exit(2);
}
let vite;
try {
  vite = await import('vite');
} catch (e) {
  process.stderr.write(`error: cannot load vite (run npm ci first): ${e.message}\n`);
  process.exit(1);
}
try {
  await vite.build({
    configFile: fileURLToPath(new URL('vite.config.mjs', import.meta.url)),
    build: { outDir: out ?? `${root}dist/live-view/web` },
  });
} catch (e) {
  process.stderr.write(`error: building the live view's page failed: ${e.message}\n`);
  process.exit(1);
}
