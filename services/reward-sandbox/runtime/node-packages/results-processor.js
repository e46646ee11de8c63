// Writes jest's aggregated results to jest-report.json in the cwd (the run's
// work dir), where SandboxFusion's jest-json-reporter puts them.
const { writeFileSync } = require('node:fs');

module.exports = function writeReport(results) {
  try {
    writeFileSync('jest-report.json', JSON.stringify(results));
  } catch (err) {
    console.warn(`Unable to write jest-report.json: ${err.message}`);
  }
  return results;
};
