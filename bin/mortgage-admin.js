#!/usr/bin/env node
// The admin command line (see README "Admin command line"); runs the TypeScript sources through tsx.
require('tsx/cjs');
const { runCli } = require('../admin/cli.ts');

runCli(process.argv.slice(2)).then(({ exitCode, stdout, stderr }) => {
  if (stdout) process.stdout.write(`${stdout}\n`);
  if (stderr) process.stderr.write(`${stderr}\n`);
  process.exit(exitCode);
});
