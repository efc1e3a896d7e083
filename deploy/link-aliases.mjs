#!/usr/bin/env node
// Makes the tsconfig path aliases (@capi/<lib>) resolvable for the compiled output: writes
// <dist>/node_modules/@capi/<lib>/package.json whose "main" points at the compiled index.js.
// Usage: node deploy/link-aliases.mjs <tsconfig.base.json> <dist>
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const [tsconfigPath, dist] = process.argv.slice(2);
if (!tsconfigPath || !dist) {
  process.stderr.write('usage: link-aliases.mjs <tsconfig.base.json> <dist>\n');
  process.exit(2);
}
const paths = JSON.parse(readFileSync(tsconfigPath, 'utf8')).compilerOptions.paths;
for (const [alias, [target]] of Object.entries(paths)) {
  const dir = join(dist, 'node_modules', alias);
  mkdirSync(dir, { recursive: true });
  const main = relative(dir, join(dist, target.replace(/\.ts$/, '.js')));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: alias, private: true, main }, null, 2) + '\n');
}
process.stdout.write(`linked ${Object.keys(paths).length} aliases under ${join(dist, 'node_modules')}\n`);
