#!/usr/bin/env node
// The packages as a downstream provider gets them: builds and packs every @capi package, copies examples/<example>
// to a temporary directory outside the repository, installs the tarballs there with plain npm (no tsconfig paths, no
// repository sources), compiles it with its own tsconfig, starts its manager on the embedded API server (its default
// data dir, the kubeconfig path it prints) and runs its smoke check (one in-place update through the example's
// in-process updater). The steps are docs/writing-a-provider.md's: afterwards the example's package.json is unchanged
// and every file they wrote is ignored by git.
//
//   node tools/scripts/packages/pack-test.mjs [--keep] [--skip-build]
//
// Third-party packages come from the npm cache (`npm ci` filled it; --prefer-offline only asks the registry for
// metadata it lacks). better-sqlite3 is installed without its install script and gets the workspace's compiled
// binding (same version, same Node ABI) instead of a 1-2 minute native build.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../../..', import.meta.url).pathname.replace(/\/$/, '');
const args = process.argv.slice(2);
const example = 'provider-example';
const step = (msg) => process.stdout.write(`pack-test: ${msg}\n`);
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;

function run(cmd, argv, cwd, extra = {}) {
  const r = spawnSync(cmd, argv, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: cleanEnv(), ...extra });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${r.status})`);
}

/** The environment without anything that would let the project see the repository (paths, node options). */
function cleanEnv() {
  const env = { ...process.env };
  for (const k of [
    'NODE_PATH',
    'NODE_OPTIONS',
    'SWC_NODE_PROJECT',
    'TS_NODE_PROJECT',
    'KUBERNETES_SERVICE_HOST',
    'KUBERNETES_SERVICE_PORT',
  ])
    delete env[k];
  return env;
}

async function main() {
  if (!args.includes('--skip-build')) {
    step('building and packing the packages');
    run(process.execPath, [join(root, 'tools/scripts/packages/build.mjs'), '--pack'], root);
  }
  const tarballs = readdirSync(join(root, 'dist/packages'))
    .filter((f) => f.endsWith('.tgz'))
    .map((f) => join(root, 'dist/packages', f));
  const dir = mkdtempSync(join(tmpdir(), 'capi-pack-test-'));
  let manager;
  try {
    cpSync(join(root, 'examples', example), dir, {
      recursive: true,
      filter: (src) => !/\/(node_modules|dist|\.capi-example)(\/|$)/.test(src.slice(root.length)),
    });
    const copied = new Set(readdirSync(dir));
    const packageJson = readFileSync(join(dir, 'package.json'), 'utf8');
    step(`installing ${tarballs.length} tarballs into ${dir} (${elapsed()})`);
    run(
      'npm',
      [
        'install',
        '--no-save',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
        ...tarballs,
      ],
      dir,
    );
    const binding = 'better-sqlite3/build/Release/better_sqlite3.node';
    const version = (d) =>
      JSON.parse(readFileSync(join(d, 'node_modules/better-sqlite3/package.json'), 'utf8')).version;
    if (version(dir) !== version(root))
      throw new Error(
        `better-sqlite3 ${version(dir)} installed, the workspace has ${version(root)}: cannot reuse its binding`,
      );
    cpSync(join(root, 'node_modules', binding), join(dir, 'node_modules', binding));

    step(`compiling the example with its own tsconfig (${elapsed()})`);
    run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], dir);

    step(`starting its manager on the embedded API server (${elapsed()})`);
    // Its default data dir (.capi-example in the current directory); no metrics and health endpoints, as other tests
    // may hold ports (the example's default ports: tools/examples/provider-example-defaults.spec.ts).
    const data = join(dir, '.capi-example');
    manager = spawn(
      process.execPath,
      ['dist/main.js', '--api-server=embedded', '--metrics-bind-address=0', '--health-probe-bind-address=0'],
      {
        cwd: dir,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const log = [];
    const stdout = [];
    manager.stderr.on('data', (b) => log.push(b.toString()));
    manager.stdout.on('data', (b) => stdout.push(b.toString()));
    const exited = new Promise((resolve) => manager.once('exit', (code, signal) => resolve({ code, signal })));
    const banner = `Example provider ready. kubeconfig: ${join(data, 'kubeconfig')}`;
    // The log line (stderr) comes first, then the banner (stdout): two pipes, so wait for both before checking either.
    const ready = await Promise.race([
      (async () => {
        while (!log.join('').includes('example provider started') || !stdout.join('').includes(banner))
          await new Promise((r) => setTimeout(r, 100));
        return true;
      })(),
      exited.then(() => false),
      new Promise((r) => setTimeout(() => r(false), 60_000).unref()),
    ]);
    if (!log.join('').includes('example provider started') || !existsSync(join(data, 'kubeconfig')))
      throw new Error(`the example manager did not start:\n${log.join('').slice(-4000)}`);
    if (!ready) throw new Error(`the example manager did not print "${banner}"; its stdout:\n${stdout.join('')}`);
    process.stdout.write(stdout.join(''));

    step(`running the smoke check (${elapsed()})`);
    // Asynchronously: a blocked event loop would stop reading the manager's log pipe, and the manager with it.
    const smoke = await new Promise((resolve) => {
      const child = spawn(process.execPath, ['dist/smoke.js', join(data, 'kubeconfig'), '120'], {
        cwd: dir,
        env: cleanEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out = { stdout: '', stderr: '' };
      child.stdout.on('data', (d) => (out.stdout += d));
      child.stderr.on('data', (d) => (out.stderr += d));
      child.once('exit', (status) => resolve({ ...out, status }));
    });
    process.stdout.write(smoke.stdout);
    if (smoke.status !== 0)
      throw new Error(`smoke check failed: ${smoke.stderr}\nmanager log (tail):\n${log.join('').slice(-6000)}`);
    const updaterLines = log
      .join('')
      .split('\n')
      .filter((l) => l.includes('ExampleUpdater'));
    if (!updaterLines.some((l) => l.includes('in place')))
      throw new Error('the manager log does not show ExampleUpdater completing the update');
    if (readFileSync(join(dir, 'package.json'), 'utf8') !== packageJson)
      throw new Error("the steps changed the example's package.json (npm install without --no-save?)");
    const notIgnored = readdirSync(dir, { withFileTypes: true })
      .filter((e) => !copied.has(e.name))
      .map((e) => `examples/${example}/${e.name}${e.isDirectory() ? '/' : ''}`)
      .filter((p) => spawnSync('git', ['check-ignore', '-q', '--no-index', p], { cwd: root }).status !== 0);
    if (notIgnored.length > 0) throw new Error(`the steps wrote files git does not ignore: ${notIgnored.join(', ')}`);
    step(`ok (${elapsed()})`);
  } finally {
    if (manager && manager.exitCode === null) {
      manager.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      if (manager.exitCode === null) manager.kill('SIGKILL');
    }
    if (args.includes('--keep')) step(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`pack-test: ${e.message}\n`);
  process.exit(1);
});
