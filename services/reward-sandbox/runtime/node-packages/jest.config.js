// The jest language's configuration (services/reward-sandbox/src/adapters/native/languages/node.ts).
// The test file and any input files sit in the sandbox's work dir, the cwd;
// this directory is bound read-only at /opt/node-packages. As SandboxFusion's
// runtime/node package.json: two workers at most, and the aggregated results
// written to jest-report.json in the work dir (fetch_files can return it).
const path = require('node:path');

module.exports = {
  rootDir: process.cwd(),
  maxWorkers: 2,
  transform: { '\\.[cm]?[jt]sx?$': ['babel-jest', { configFile: path.join(__dirname, 'babel.config.js') }] },
  testResultsProcessor: path.join(__dirname, 'results-processor.js'),
  // Nothing to gain from watchman or `find` in a fresh sandbox: crawl with fs.
  watchman: false,
  haste: { forceNodeFilesystemAPI: true },
};
