/**
 * Prints the plain closing line CI reads, `N passed, N failed`, computed from jest's results,
 * and writes the counts to .test-results.json for .ci/run.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${results.numPassedTests} passed, ${failed} failed` + (results.numPendingTests ? `, ${results.numPendingTests} skipped` : '');
    process.stdout.write(`\n${line}\n`);
    require('node:fs').writeFileSync(
      '.test-results.json',
      JSON.stringify({ passed: results.numPassedTests, failed, skipped: results.numPendingTests }),
    );
  }
}
module.exports = SummaryReporter;
