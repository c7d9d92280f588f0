/**
 * Lambda bundle benchmark (not part of `npm test`): `npm run bench -- bundles`.
 * Builds every function with the deployment's build (lib/bundling/function-bundles.ts) twice, with
 * the AWS SDK v3 clients bundled and left external, plus a hello-world handler built the same way,
 * and prints each bundle's size and its module-load time: the median of BENCH_LOADS (10) fresh
 * Node.js processes that each `require()` the bundle once, as a Lambda cold start does (with
 * `NODE_OPTIONS=--enable-source-maps`, as deployed). An external SDK resolves from the project's
 * node_modules, as the runtime's copy would. Samples are taken round-robin across the bundles so
 * a busy moment of the machine spreads over all of them; compare the ratios, not the milliseconds.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildFunctionBundles, buildHelloWorldBundle, buildTableClientFloorBundle, PROJECT_ROOT, SDK_MODE, topContributors, type SdkMode } from '../../lib/bundling/function-bundles';
import { percentile } from './bench-support';

const LOADS = Number(process.env.BENCH_LOADS ?? 10);
/** The target of the issue: module load at most this many times the hello-world bundle's. */
const LOAD_RATIO_BUDGET = 10;

const LOADER = `
const started = performance.now();
const cpu = process.cpuUsage();
const handler = require(process.argv[1]).handler;
const elapsed = performance.now() - started;
const used = process.cpuUsage(cpu);
if (typeof handler !== 'function') process.exit(3);
process.stdout.write(JSON.stringify([elapsed, (used.user + used.system) / 1000]));
`;

/** What Lambda sets, so the configuration validates as in a cold start (nothing is called). */
const LAMBDA_ENVIRONMENT = {
  AWS_LAMBDA_FUNCTION_NAME: 'bench',
  AWS_REGION: 'eu-west-1',
  TABLE_NAME: 'bench',
  NODE_OPTIONS: '--enable-source-maps',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Wall-clock and CPU milliseconds of one `require()`. */
function loadOnce(file: string): [number, number] {
  const output = execFileSync(process.execPath, ['-e', LOADER, file], {
    env: { PATH: process.env.PATH, ...LAMBDA_ENVIRONMENT, NODE_PATH: path.join(PROJECT_ROOT, 'node_modules') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return JSON.parse(output.toString()) as [number, number];
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main() {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-'));
  try {
    const modes: SdkMode[] = ['bundled', 'external'];
    const built = Object.fromEntries(
      await Promise.all(modes.map(async (sdk) => [sdk, await buildFunctionBundles({ outdir: path.join(outdir, sdk), sdk })] as const)),
    ) as Record<SdkMode, Awaited<ReturnType<typeof buildFunctionBundles>>>;
    const helloWorld = path.join(await buildHelloWorldBundle(outdir), 'index.js');
    const floor = path.join(await buildTableClientFloorBundle(outdir), 'index.js');

    const targets = [
      { key: 'hello-world', file: helloWorld },
      { key: 'floor', file: floor },
      ...modes.flatMap((sdk) => built[sdk].map((bundle) => ({ key: `${sdk}:${bundle.folder}`, file: path.join(bundle.directory, 'index.js') }))),
    ];
    const samples = new Map<string, Array<[number, number]>>(targets.map((target) => [target.key, []]));
    for (const target of targets) loadOnce(target.file); // warm the file cache
    for (let round = 0; round < LOADS; round++) {
      for (const target of targets) samples.get(target.key)!.push(loadOnce(target.file));
    }
    const median = (key: string, which = 0) => percentile(samples.get(key)!.map((sample) => sample[which]).sort((a, b) => a - b), 0.5);
    const baseline = median('hello-world');
    const cpuBaseline = median('hello-world', 1);

    console.log(`Node.js ${process.version} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}; median of ${LOADS} loads each; deployed SDK mode: ${SDK_MODE}`);
    console.log(`hello-world bundle: ${kb(fs.statSync(helloWorld).size)}, load ${ms(baseline)} (CPU ${ms(cpuBaseline)})`);
    const floorLoad = median('floor');
    console.log(
      `table-client floor (the service's DynamoDB client and logger, nothing else): ${kb(fs.statSync(floor).size)}, load ${ms(floorLoad)} = ${(floorLoad / baseline).toFixed(1)}× hello-world (CPU ${ms(median('floor', 1))})`,
    );
    console.log('load = wall-clock median (× hello-world); cpu = CPU-time median (× hello-world), steadier on a busy machine\n');
    console.log(
      `${'function'.padEnd(18)} ${'SDK bundled'.padStart(12)} ${'load'.padStart(9)} ${'×'.padStart(6)} ${'cpu'.padStart(9)} ${'×'.padStart(6)}   ${'SDK external'.padStart(12)} ${'load'.padStart(9)} ${'×'.padStart(6)} ${'cpu'.padStart(9)} ${'×'.padStart(6)}   static files`,
    );
    let overBudget = 0;
    for (const [index, bundled] of built.bundled.entries()) {
      const external = built.external[index];
      const row = [bundled, external].map((bundle, column) => {
        const load = median(`${modes[column]}:${bundle.folder}`);
        const cpu = median(`${modes[column]}:${bundle.folder}`, 1);
        if (modes[column] === SDK_MODE && load > LOAD_RATIO_BUDGET * baseline) overBudget += 1;
        return `${kb(bundle.bytes).padStart(12)} ${ms(load).padStart(9)} ${(load / baseline).toFixed(1).padStart(5)}× ${ms(cpu).padStart(9)} ${(cpu / cpuBaseline).toFixed(1).padStart(5)}×`;
      });
      const statics = Object.values(bundled.staticFiles).reduce((sum, bytes) => sum + bytes, 0);
      console.log(`${bundled.folder.padEnd(18)} ${row.join('   ')}   ${statics ? kb(statics) : '-'}`);
    }
    const total = (sdk: SdkMode) => built[sdk].reduce((sum, bundle) => sum + bundle.bytes, 0);
    console.log(`${'all'.padEnd(18)} ${kb(total('bundled')).padStart(12)} ${''.padStart(33)}   ${kb(total('external')).padStart(12)}`);
    console.log(`\nmodule load over ${LOAD_RATIO_BUDGET}× hello-world (deployed mode): ${overBudget} of ${built.bundled.length}`);

    console.log('\nlargest contributors (deployed mode, index.js):');
    for (const bundle of built[SDK_MODE]) {
      console.log(`  ${bundle.folder.padEnd(18)} ${topContributors(bundle.metafile, 6).map((entry) => `${entry.name} ${kb(entry.bytes)}`).join(', ')}`);
    }
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: Error) => {
    console.error(error.stack ?? error.message);
    process.exit(1);
  },
);
