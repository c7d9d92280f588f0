/**
 * `node --import tsx lib/bundling/build-function-bundles.ts <outdir> [--sdk bundled|external]`:
 * builds every Lambda bundle (see function-bundles.ts) and prints each one's size and its largest
 * contributors. CDK runs it through `functionBundleDirectory()`; `npm run bundles` writes to
 * `cdk.out/bundles` for a look at what is deployed.
 */
import * as path from 'node:path';
import { buildFunctionBundles, topContributors, type SdkMode } from './function-bundles';

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const sdkFlag = args.indexOf('--sdk');
  const sdk = sdkFlag >= 0 ? (args[sdkFlag + 1] as SdkMode) : undefined;
  if (sdk !== undefined && sdk !== 'bundled' && sdk !== 'external') throw new Error('--sdk must be bundled or external');
  const outdir = args.find((arg, index) => !arg.startsWith('--') && args[index - 1] !== '--sdk');
  if (!outdir) throw new Error('usage: build-function-bundles.ts <outdir> [--sdk bundled|external]');
  const bundles = await buildFunctionBundles({ outdir: path.resolve(outdir), sdk });
  for (const bundle of bundles) {
    const contributors = topContributors(bundle.metafile, 6).map((entry) => `${entry.name} ${kb(entry.bytes)}`);
    const statics = Object.entries(bundle.staticFiles).reduce((sum, [, bytes]) => sum + bytes, 0);
    console.log(`${bundle.folder.padEnd(18)} ${kb(bundle.bytes).padStart(10)}${statics ? ` (+ ${kb(statics)} static files)` : ''}  ${contributors.join(', ')}`);
  }
}

main().catch((error: Error) => {
  console.error(error.stack ?? error.message);
  process.exit(1);
});
