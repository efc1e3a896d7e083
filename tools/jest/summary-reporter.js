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
      }),
    );
  }
}
module.exports = SummaryReporter;
