// Prints vitest's JSON report as the plain closing line CI reads: "Tests: N passed, N failed".
import { readFileSync } from 'node:fs';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(
  `Tests: ${report.numPassedTests} passed, ${report.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ''),
);
