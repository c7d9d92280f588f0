/**
 * `npm run bench` (not part of `npm test`): every benchmark of this folder (`*.bench.ts`), one
 * after another, each printing its figures as it goes. Each runs in a Node.js process of its own,
 * exactly as `npx tsx test/bench/<name>.bench.ts` would: a benchmark starts its own DynamoDB Local
 * and runtime, sets its own environment and runs at import, so none can disturb the next.
 *
 * `npm run bench -- webhooks intake` runs only the benchmarks whose file names contain one of the
 * words. The BENCH_* settings of each benchmark pass through. A benchmark that fails does not stop
 * the others; the run then ends with exit code 1.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

const BENCH_DIRECTORY = __dirname;
const SUFFIX = '.bench.ts';

function benchmarks(filters: string[]): string[] {
  const all = readdirSync(BENCH_DIRECTORY)
    .filter((name) => name.endsWith(SUFFIX))
    .sort();
  return filters.length === 0 ? all : all.filter((name) => filters.some((filter) => name.includes(filter)));
}

/** One benchmark with its output on this terminal; resolves with its exit code. */
function run(file: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIRECTORY, file)], { stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`${file}: could not start: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const filters = process.argv.slice(2);
  const files = benchmarks(filters);
  if (files.length === 0) {
    console.error(`no benchmark in test/bench matches ${filters.join(', ')}; there are: ${benchmarks([]).join(', ')}`);
    return 2;
  }
  const failed: string[] = [];
  for (const [index, file] of files.entries()) {
    console.log(`\n== ${file} (${index + 1}/${files.length})`);
    const started = performance.now();
    const code = await run(file);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (code === 0) {
      console.log(`== ${file}: done in ${seconds} s`);
    } else {
      console.log(`== ${file}: FAILED (exit code ${code}) after ${seconds} s`);
      failed.push(file);
    }
  }
  console.log(`\n${files.length - failed.length} of ${files.length} benchmark(s) ran${failed.length > 0 ? `; failed: ${failed.join(', ')}` : ''}`);
  return failed.length > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(error.stack ?? error.message);
    process.exit(1);
  },
);
