#!/usr/bin/env node
// Compiles the manager to CommonJS as the container image runs it (deploy/Dockerfile): tsc with decorator metadata,
// then what tsc does not emit but the compiled code reads at run time (the protobuf schemas of the API codec, the
// manager's package.json for its version), then <out>/node_modules/@capi/<lib>/package.json for each tsconfig path
// alias so that `require('@capi/<lib>')` finds the compiled index.js.
//
//   node deploy/build.mjs [--project <tsconfig>] [<out>]    default: deploy/tsconfig.build.json into dist/
//
// A project other than deploy/tsconfig.build.json (the benchmark's manager child) extends it with more entry files.
// Third-party packages resolve from the node_modules above <out> (the repository's or the image's /app/node_modules).
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Files and folders the compiled code reads next to itself, relative to the repository root. */
export const RUNTIME_ASSETS = ['libs/apiserver/src/protobuf/proto', 'apps/manager/package.json'];

/** Writes <out>/node_modules/<alias>/package.json pointing at the compiled entry of each tsconfig path alias. */
export function linkAliases(out, tsconfigPath = join(ROOT, 'tsconfig.base.json')) {
  const paths = JSON.parse(readFileSync(tsconfigPath, 'utf8')).compilerOptions.paths;
  for (const [alias, [target]] of Object.entries(paths)) {
    const dir = join(out, 'node_modules', alias);
    mkdirSync(dir, { recursive: true });
    const main = relative(dir, join(out, target.replace(/\.ts$/, '.js')));
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: alias, private: true, main }, null, 2)}\n`);
  }
  return Object.keys(paths).length;
}

/** Compiles `project` into `out` and completes it (assets, aliases); throws with tsc's diagnostics on failure. */
export function buildManager({ project = join(ROOT, 'deploy/tsconfig.build.json'), out = join(ROOT, 'dist') } = {}) {
  const tsc = createRequire(join(ROOT, 'package.json')).resolve('typescript/bin/tsc');
  const res = spawnSync(process.execPath, [tsc, '-p', resolve(project), '--outDir', resolve(out)], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (res.status !== 0) {
    const diagnostics = `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().split('\n').slice(0, 20).join('\n');
    throw new Error(
      `tsc -p ${relative(ROOT, resolve(project))} failed (${res.error?.message ?? `exit ${res.status}`}):\n${diagnostics}`,
    );
  }
  for (const asset of RUNTIME_ASSETS) cpSync(join(ROOT, asset), join(out, asset), { recursive: true });
  return linkAliases(resolve(out));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { values, positionals } = parseArgs({ options: { project: { type: 'string' } }, allowPositionals: true });
    if (positionals.length > 1) throw new Error('usage: node deploy/build.mjs [--project <tsconfig>] [<out>]');
    const out = resolve(positionals[0] ?? join(ROOT, 'dist'));
    const aliases = buildManager({ project: values.project, out });
    process.stdout.write(`built the manager into ${out} (${aliases} @capi aliases linked)\n`);
  } catch (e) {
    process.stderr.write(`error: ${e.message}\n`);
    process.exit(1);
  }
}
