#!/usr/bin/env node
// The admin command line (see README "Admin command line"); runs the TypeScript sources through tsx.
// Node 20 is supported here; keep stderr to the one JSON error line the contract promises.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
require('tsx/cjs');
const { runCli } = require('../admin/cli.ts');

runCli(process.argv.slice(2)).then(({ exitCode, stdout, stderr }) => {
  if (stdout) process.stdout.write(`${stdout}\n`);
  if (stderr) process.stderr.write(`${stderr}\n`);
  process.exit(exitCode);
});
