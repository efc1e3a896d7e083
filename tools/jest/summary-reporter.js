// Writes each jest run's totals to tmp/test-results/<project>.json so that
// tools/scripts/test-all.mjs can print one closing "tests: N passed, N failed" line.
// It also ends a run that does not exit: a test that leaves a socket or a server open keeps an in-band jest (one
// worker, as on a 2-core CI machine) alive for ever, and CI would only see its time limit run out.
const fs = require('fs');
const path = require('path');

/** How long a finished run may take to exit before the reporter names what keeps it alive and ends it. */
const EXIT_GRACE_MS = Number(process.env.CAPI_TEST_EXIT_GRACE_MS ?? 60000);

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }
  onRunComplete(_contexts, results) {
    const dir = process.env.CAPI_TEST_RESULTS_DIR;
    const project = path.relative(path.join(__dirname, '..', '..'), this.rootDir).replace(/[\\/]/g, '_') || 'root';
    const name = `${project}${process.env.ENVTEST_TARGET === 'kube' ? '.kube' : ''}`;
    const file = dir && path.join(dir, `${name}.json`);
    // Unref'd: it fires only while something else still keeps the process alive.
    setTimeout(() => exitHung(name, file), EXIT_GRACE_MS).unref();
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    const failedSuites = results.testResults
      .filter((r) => r.testExecError || r.failureMessage)
      .map((r) => r.testFilePath);
    // The failed tests with the first lines of their failure: a CI log keeps only its tail, and the tail is where
    // test-all prints this summary.
    const failedTests = results.testResults.flatMap((r) => {
      const tests = r.testResults
        .filter((t) => t.status === 'failed')
        .map((t) => ({ file: r.testFilePath, name: t.fullName, message: firstLines(t.failureMessages.join('\n')) }));
      if (tests.length === 0 && r.testExecError)
        tests.push({ file: r.testFilePath, name: '(suite)', message: firstLines(String(r.testExecError.message)) });
      return tests;
    });
    fs.writeFileSync(
      file,
      JSON.stringify({
        project: name,
        passed: results.numPassedTests,
        failed: results.numFailedTests,
        skipped: results.numPendingTests + results.numTodoTests,
        failedSuites: results.numFailedTestSuites,
        runtimeErrorSuites: results.numRuntimeErrorTestSuites,
        failedSuitePaths: failedSuites,
        failedTests,
      }),
    );
  }
}

/** Names what keeps the finished run alive, records it as a failure for test-all's summary, and exits non-zero. */
function exitHung(name, file) {
  const handles = process
    ._getActiveHandles()
    .map(describeHandle)
    .filter((h) => h !== undefined);
  // Timers and pending requests are not handles: getActiveResourcesInfo names those too (by type).
  const resources = {};
  for (const r of process.getActiveResourcesInfo?.() ?? []) resources[r] = (resources[r] ?? 0) + 1;
  const counted = Object.entries(resources).map(([r, n]) => `${r} x${n}`);
  const message = `open handles: ${handles.join('; ') || '(none listed)'}; active resources: ${counted.join(', ')}`;
  console.error(`error: ${name}: jest did not exit ${EXIT_GRACE_MS / 1000} s after its run; ${message}`);
  if (file && fs.existsSync(file)) {
    const summary = JSON.parse(fs.readFileSync(file, 'utf8'));
    summary.failed += 1;
    summary.failedTests.push({ file: '(jest)', name: 'the run exits once its tests are done', message });
    fs.writeFileSync(file, JSON.stringify(summary));
  }
  process.exit(1);
}

/** A handle as a short phrase: a socket by its addresses, a server by its port, anything else by its type. */
function describeHandle(h) {
  const type = h?.constructor?.name ?? typeof h;
  if (h === process.stdout || h === process.stderr || h === process.stdin) return undefined;
  if (type === 'Socket' || type === 'TLSSocket') {
    // A socket without ports is a pipe: a child process's stdio, or the reporter's own stdout/stderr (left out).
    if (h.remotePort === undefined && h.localPort === undefined)
      return h._handle?.fd >= 0 && h._handle.fd <= 2 ? undefined : `pipe${h.spawnfile ? ` of ${h.spawnfile}` : ''}`;
    return `${type} ${h.localAddress ?? ''}:${h.localPort ?? ''} -> ${h.remoteAddress ?? ''}:${h.remotePort ?? ''}`;
  }
  if (type === 'Server') return `Server on ${JSON.stringify(h.address?.() ?? null)}`;
  if (type === 'ChildProcess') return `ChildProcess ${h.pid} (${h.spawnargs?.slice(0, 3).join(' ')})`;
  return type;
}

/** The first lines of a failure message, colours and jest's own stack frames stripped: what failed and where. */
function firstLines(message, max = 12) {
  // eslint-disable-next-line no-control-regex
  const lines = message.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
  return lines
    .filter((l) => l.trim() !== '' && !l.includes('/node_modules/') && !l.includes('(<anonymous>)'))
    .slice(0, max)
    .join('\n');
}
module.exports = SummaryReporter;
