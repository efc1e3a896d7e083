// Writes each jest run's totals to tmp/test-results/<project>.json so that
// tools/scripts/test-all.mjs can print one closing "tests: N passed, N failed" line.
const fs = require('fs');
const path = require('path');

class SummaryReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }
  onRunComplete(_contexts, results) {
    const dir = process.env.CAPI_TEST_RESULTS_DIR;
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    const project = path.relative(path.join(__dirname, '..', '..'), this.rootDir).replace(/[\\/]/g, '_') || 'root';
    const name = `${project}${process.env.ENVTEST_TARGET === 'kube' ? '.kube' : ''}`;
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
      path.join(dir, `${name}.json`),
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
