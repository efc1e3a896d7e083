#!/usr/bin/env node
// Runs every project's jest target through nx and prints one closing summary line.
// Usage: npm test [-- <extra nx args, e.g. --projects=api>]
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const resultsDir = join(root, 'tmp', 'test-results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

const args = ['nx', 'run-many', '-t', 'test', '--outputStyle=stream', '--skipNxCache', ...process.argv.slice(2)];
const run = spawnSync('npx', args, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true', CAPI_TEST_RESULTS_DIR: resultsDir, FORCE_COLOR: '0' },
});

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
  for (const p of r.failedSuitePaths) console.log(`failed suite: ${p}`);
}
if (brokenSuites > 0) console.log(`${brokenSuites} test suite(s) failed to run`);
// A suite that cannot even load counts as a failure so the line never hides it.
const failures = failed + brokenSuites;
console.log(`tests: ${passed} passed, ${failures} failed, ${skipped} skipped`);
process.exit(run.status === 0 && failures === 0 && files.length > 0 ? 0 : 1);
