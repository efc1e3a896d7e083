#!/usr/bin/env node
// Builds the publishable npm packages (@capi/<lib>, @capi/manager) into dist/ and optionally packs them.
//
//   node tools/scripts/packages/build.mjs [--pack] [name...]     (names: api, controller-runtime, ..., manager, cli; default all)
//
// One tsc program (declarations + decorator metadata) compiles the requested packages (src/index.ts,
// src/testing/index.ts for the "./testing" entry point when there is one, and the scripts of package.json "bin", e.g.
// "./main.js" from src/main.ts) and the @capi packages they depend on;
// `@capi/*` imports stay bare specifiers, resolved as npm dependencies once installed. Each package's committed
// package.json (libs/<lib>/package.json, apps/manager/package.json) is copied with the compiled files and the run-time
// assets of src/ (RUNTIME_ASSETS: the .proto schemas) to dist/<dir>/; the build fails when its dependencies do not
// match what the compiled output requires, or when its version differs from the root package.json (all packages are
// versioned in lockstep). --pack runs `npm pack` into dist/packages/.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative } from 'node:path';

const root = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');
const args = process.argv.slice(2);
const pack = args.includes('--pack');
const wanted = args.filter((a) => !a.startsWith('--'));

/** Every package: its directory and committed package.json. */
function packages() {
  const dirs = [...readdirSync(join(root, 'libs')).map((d) => `libs/${d}`), 'apps/manager', 'apps/cli'];
  return dirs
    .filter((d) => existsSync(join(root, d, 'package.json')))
    .map((dir) => ({
      dir,
      short: dir.split('/')[1],
      manifest: JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')),
    }));
}

function fail(msg) {
  process.stderr.write(`build-packages: ${msg}\n`);
  process.exit(1);
}

const all = packages();
const byName = new Map(all.map((p) => [p.manifest.name, p]));
const rootVersion = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
for (const w of wanted)
  if (!all.some((p) => p.short === w || p.manifest.name === w))
    fail(`unknown package ${w} (known: ${all.map((p) => p.short).join(', ')})`);
const selected = wanted.length ? all.filter((p) => wanted.includes(p.short) || wanted.includes(p.manifest.name)) : all;

// The requested packages and their @capi dependencies, transitively (tsc compiles them all in one program anyway).
const closure = new Map();
const visit = (p) => {
  if (closure.has(p.manifest.name)) return;
  closure.set(p.manifest.name, p);
  for (const d of Object.keys(p.manifest.dependencies ?? {})) if (byName.has(d)) visit(byName.get(d));
};
selected.forEach(visit);

/** The sources of a package's executables: "bin" entries "./x.js" are compiled from src/x.ts. */
const binSources = (p) =>
  Object.values(p.manifest.bin ?? {}).map((b) => `src/${b.replace(/^\.\//, '').replace(/\.js$/, '.ts')}`);

// 1. Compile.
const buildDir = join(root, 'tmp/packages/build');
rmSync(buildDir, { recursive: true, force: true });
mkdirSync(join(root, 'tmp/packages'), { recursive: true });
const tsconfig = join(root, 'tmp/packages/tsconfig.json');
writeFileSync(
  tsconfig,
  JSON.stringify({
    extends: '../../tsconfig.base.json',
    compilerOptions: {
      noEmit: false,
      declaration: true,
      outDir: './build',
      rootDir: '../..',
      sourceMap: false,
      types: ['node'],
    },
    // A package's test helpers (src/testing/index.ts, its "./testing" export) compile with it.
    files: [...closure.values()].flatMap((p) =>
      ['src/index.ts', 'src/testing/index.ts', ...binSources(p)]
        .filter((f) => f === 'src/index.ts' || existsSync(join(root, p.dir, f)))
        .map((f) => `../../${p.dir}/${f}`),
    ),
  }),
);
const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], {
  cwd: root,
  stdio: 'inherit',
});
if (tsc.status !== 0) fail('tsc failed');

// 2. Assemble dist/<dir> and check each manifest against what the compiled code requires.
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const packageOf = (spec) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
/** Extensions of source files copied into the package as they are (tsc emits only code). */
const RUNTIME_ASSETS = ['.proto'];
const walk = (dir) =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
const problems = [];
for (const p of selected) {
  const m = p.manifest;
  if (m.version !== rootVersion)
    problems.push(`${m.name}: version ${m.version} differs from the root package.json's ${rootVersion}`);
  if (existsSync(join(root, p.dir, 'src/testing/index.ts')) !== Boolean(m.exports?.['./testing']))
    problems.push(`${m.name}: src/testing/index.ts and a "./testing" entry in package.json exports go together`);
  const out = join(root, 'dist', p.dir);
  rmSync(out, { recursive: true, force: true });
  cpSync(join(buildDir, p.dir, 'src'), out, { recursive: true });
  // Files the code reads at run time sit next to it (@capi/apiserver's protobuf schemas: src/protobuf/proto/**).
  const src = join(root, p.dir, 'src');
  for (const f of walk(src).filter((f) => RUNTIME_ASSETS.some((ext) => f.endsWith(ext))))
    cpSync(f, join(out, relative(src, f)));
  for (const f of ['README.md']) if (existsSync(join(root, p.dir, f))) cpSync(join(root, p.dir, f), join(out, f));
  writeFileSync(
    join(out, 'package.json'),
    JSON.stringify({ ...m, license: m.license ?? 'Apache-2.0' }, null, 2) + '\n',
  );
  const required = new Set();
  for (const file of walk(out).filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))) {
    const text = readFileSync(file, 'utf8');
    // Specifiers have no whitespace: prose in strings ("reported from 'uname -r'") is not an import.
    for (const [, spec] of text.matchAll(/(?:require\(|import\(|from\s+|import\s+)["']([^"'.\s][^"'\s]*)["']/g)) {
      if (!builtins.has(spec) && packageOf(spec) !== m.name) required.add(packageOf(spec));
    }
  }
  // Libs never depend on an app (the manager is the only package under apps/).
  if (p.dir.startsWith('libs/') && required.has('@capi/manager'))
    problems.push(`${m.name}: a lib must not import the manager (@capi/manager)`);
  const declared = { ...m.dependencies, ...m.peerDependencies };
  for (const r of required)
    if (!(r in declared))
      problems.push(
        `${m.name}: the compiled output requires ${r}, missing from ${p.dir}/package.json dependencies/peerDependencies`,
      );
  for (const d of Object.keys(m.dependencies ?? {})) {
    if (byName.has(d) && m.dependencies[d] !== rootVersion)
      problems.push(`${m.name}: dependency ${d}@${m.dependencies[d]} must be the lockstep version ${rootVersion}`);
    if (!required.has(d))
      process.stderr.write(
        `build-packages: warning: ${m.name} declares ${d} but its compiled output does not require it\n`,
      );
  }
}
if (problems.length) fail(problems.join('\n  '));
process.stdout.write(`built ${selected.map((p) => relative(root, join(root, 'dist', p.dir))).join(', ')}\n`);

// 3. Pack.
if (pack) {
  const dest = join(root, 'dist/packages');
  mkdirSync(dest, { recursive: true });
  for (const p of selected) {
    // Tarballs of an earlier version would be installed next to the new ones by `npm install dist/packages/*.tgz`.
    const prefix = `${p.manifest.name.replace('@', '').replace('/', '-')}-`;
    for (const f of readdirSync(dest))
      if (f.startsWith(prefix) && /^\d/.test(f.slice(prefix.length)) && f.endsWith('.tgz')) rmSync(join(dest, f));
    const r = spawnSync('npm', ['pack', '--silent', '--pack-destination', dest], {
      cwd: join(root, 'dist', p.dir),
      encoding: 'utf8',
    });
    if (r.status !== 0) fail(`npm pack ${p.manifest.name}: ${r.stderr}`);
    process.stdout.write(`packed ${join(relative(root, dest), r.stdout.trim().split('\n').pop())}\n`);
  }
}
