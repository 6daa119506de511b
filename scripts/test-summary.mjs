// Prints vitest JSON reports as the plain closing line CI reads: "Tests: N passed, N failed".
// With several reports (make test: unit, then e2e) it prints their total; a report that is
// missing (its suite did not get to run) counts as a failure and is named, never as zero tests.
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
let failedFiles = 0;
const missing = [];
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    missing.push(file);
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  // A file whose setup threw fails no test (its tests count as skipped), yet the run failed.
  // (numFailedTestSuites would count each describe block around a failed test too.)
  failedFiles += report.testResults.filter((file) => file.status === 'failed').length;
}
if (missing.length > 0) console.log(`No test report at ${missing.join(', ')}: that suite did not run to the end.`);
console.log(
  `Tests: ${passed} passed, ${failed} failed` + (skipped ? `, ${skipped} skipped` : '') + (failedFiles ? `, ${failedFiles} test files failed` : ''),
);
process.exit(failed > 0 || failedFiles > 0 || missing.length > 0 ? 1 : 0);
