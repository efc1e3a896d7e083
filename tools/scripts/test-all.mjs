#!/usr/bin/env node
// Runs every project's jest target through nx, on both API server targets, and prints one closing summary line:
//   1. embedded: every suite, controller envtests on the embedded API server;
//   2. kube: the envtest suites again on etcd + kube-apiserver (built by `npm run kube:build`, cached).
// --target=unit (npm run test:unit) runs the unit pass alone: the specs that need no API server, binary, port or child
// process, i.e. those under src/ in libs and apps (jest.preset.js has the rule, and the one for tools/).
// Usage: npm test [-- --target=embedded|kube|unit] [-- <extra nx args, e.g. --projects=api>]
//
// Two suites run at a time (nx.json "parallel": 2, on 2 cores). In the full embedded pass the tools project (the
// end-to-end suites, about 70 % of that pass, mostly waiting on the processes they start) would otherwise start last,
// as nx schedules the projects others depend on first, and then run alone: there it runs in a lane of its own from the
// start, beside one nx lane for every other project.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { kubeAssets } from '../kube/assets.mjs';

const root = new URL('../..', import.meta.url).pathname;
const resultsDir = join(root, 'tmp', 'test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

const targetArg = process.argv.slice(2).find((a) => a.startsWith('--target='));
const targets = targetArg ? [targetArg.slice('--target='.length)] : ['embedded', 'kube'];
if (targets.some((t) => t !== 'embedded' && t !== 'kube' && t !== 'unit')) {
  console.error(`error: ${targetArg}: want --target=embedded, --target=kube or --target=unit`);
  process.exit(2);
}
const nxArgs = process.argv.slice(2).filter((a) => a !== targetArg);

// The binaries first (built once per machine, then cached): both passes have tests that use them.
let assets;
let status = 0;
if (targets.includes('kube')) {
  try {
    assets = await kubeAssets({ build: true, log: (l) => console.log(l) });
  } catch (e) {
    console.log(`error: the kube target cannot run: ${e.message}`);
    status = 1;
  }
}
for (const target of targets) {
  const env = {
    ...process.env,
    NX_DAEMON: 'false',
    NX_NO_CLOUD: 'true',
    CAPI_TEST_RESULTS_DIR: resultsDir,
    FORCE_COLOR: '0',
    // The unit pass starts no API server; ENVTEST_TARGET stays a target name for whatever reads it.
    ENVTEST_TARGET: target === 'unit' ? 'embedded' : target,
    CAPI_TEST_PASS: target === 'unit' ? 'unit' : '',
  };
  if (assets) env.KUBEBUILDER_ASSETS = assets;
  if (target === 'kube') {
    if (!assets) continue;
    console.log(`test-all: kube target (etcd + kube-apiserver from ${assets})`);
  } else {
    console.log(
      target === 'unit' ? 'test-all: unit pass (no API server, binaries or ports)' : 'test-all: embedded target',
    );
  }
  const started = Date.now();
  const ok =
    target === 'embedded' && nxArgs.length === 0
      ? await toolsBesideTheRest(env)
      : run('npx', ['nx', 'run-many', '-t', 'test', '--outputStyle=stream', '--skipNxCache', ...nxArgs], env);
  console.log(
    `test-all: ${target} ${target === 'unit' ? 'pass' : 'target'} done in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (!ok) status = 1;
}

/** Runs a command to its end with the output inherited; whether it exited 0. */
function run(command, args, env) {
  return spawnSync(command, args, { cwd: root, stdio: 'inherit', env }).status === 0;
}

/**
 * The tools project's jest (in tools/, as nx's inferred target runs it) in one lane, its output prefixed as nx prefixes
 * it, and nx's run-many of every other project in the other, after the live view's page both lanes' tests need is built
 * once (hence --excludeTaskDependencies).
 */
async function toolsBesideTheRest(env) {
  if (!run('npx', ['nx', 'run', 'live-view:build-web', '--outputStyle=stream', '--skipNxCache'], env)) return false;
  const rest = ['run-many', '-t', 'test', '--exclude=tools', '--parallel=1', '--excludeTaskDependencies'];
  const lanes = [
    lane('npx', ['jest'], join(root, 'tools'), env, 'tools: '),
    lane('npx', ['nx', ...rest, '--outputStyle=stream', '--skipNxCache'], root, env),
  ];
  return (await Promise.all(lanes)).every(Boolean);
}

/**
 * Starts a command; resolves to whether it exited 0. Its output is inherited, or with `prefix` printed line by line
 * with that prefix.
 */
function lane(command, args, cwd, env, prefix) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: prefix ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    for (const stream of prefix ? [child.stdout, child.stderr] : []) {
      let carry = '';
      stream.setEncoding('utf8');
      stream.on('data', (d) => {
        const lines = (carry + d).split('\n');
        carry = lines.pop();
        for (const l of lines) process.stdout.write(`${prefix}${l}\n`);
      });
      stream.on('end', () => carry && process.stdout.write(`${prefix}${carry}\n`));
    }
    child.on('error', (e) => {
      console.log(`error: ${command} ${args.join(' ')}: ${e.message}`);
      resolve(false);
    });
    child.on('close', (code) => resolve(code === 0));
  });
}

const indent = (text) =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
let passed = 0;
let failed = 0;
let skipped = 0;
let brokenSuites = 0;
const files = readdirSync(resultsDir).filter((f) => f.endsWith('.json'));
for (const f of files) {
  const r = JSON.parse(readFileSync(join(resultsDir, f), 'utf8'));
  passed += r.passed;
  failed += r.failed;
  skipped += r.skipped;
  brokenSuites += r.runtimeErrorSuites;
  for (const p of r.failedSuitePaths) console.log(`failed suite (${r.project}): ${p}`);
  for (const t of r.failedTests ?? []) console.log(`failed test (${r.project}): ${t.name}\n${indent(t.message)}`);
}
if (brokenSuites > 0) console.log(`${brokenSuites} test suite(s) failed to run`);
// A suite that cannot even load counts as a failure so the line never hides it.
const failures = failed + brokenSuites;
console.log(`tests: ${passed} passed, ${failures} failed, ${skipped} skipped`);
process.exit(status === 0 && failures === 0 && files.length > 0 ? 0 : 1);
