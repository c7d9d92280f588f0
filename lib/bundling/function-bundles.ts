/**
 * The one build of the Lambda bundles: CDK (`lambda.Code.fromAsset`, through
 * `functionBundleDirectories()`), the bundle-size test and the bundle benchmark all call
 * `buildFunctionBundles()`, so the sizes they check are those of the code that is deployed.
 *
 * Each function folder `functions/<name>/handler.ts` becomes `<outdir>/<name>/index.js` (minified
 * CommonJS for Node.js 22, export `handler`) with `index.js.map` (mappings only) and, where a
 * function needs them, static files read at run time:
 *
 * - `api-fallback/openapi.json`: the OpenAPI document, generated here from the same zod schemas
 *   the handlers validate with (`functions/api-fallback/openapi-document.ts`). The bundled module
 *   reads the file instead of importing every route group and building the document at run time.
 * - `intake/iconv-lite-tables/*.json`: iconv-lite's double-byte tables (Chinese, Japanese, Korean
 *   charsets). iconv-lite `require()`s a table only when such a charset is declared, so they stay
 *   files next to the bundle rather than 400 KB of JavaScript parsed at every cold start; every
 *   charset iconv-lite knows is still decoded (spec §4).
 *
 * Weight rules, each measured with the metafile (see `topContributors`):
 * - The AWS SDK v3 clients are bundled (`SDK_MODE`): the deployed SDK is the version the tests ran
 *   with, and the bundled, tree-shaken clients load faster than the runtime's many files
 *   (`npm run bench -- bundles` prints both).
 * - With the SDK bundled, its credential chain is reduced to the environment, where Lambda puts the
 *   role's credentials (`lambda-credential-provider.ts`).
 * - ES module entry points first (`mainFields`), so esbuild can drop what a function never uses.
 * - Non-ASCII text stays UTF-8 (`charset: 'utf8'`) instead of `\uXXXX` escapes.
 * - libphonenumber-js gets its `min` metadata without the national formatting rules: the service
 *   only parses numbers, checks `isPossible()` and reads the E.164 `number`, none of which reads
 *   them. `test/cdk/bundle-size.test.ts` checks every country's example number gives the same
 *   result with both metadata sets.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BuildOptions, Metafile, Plugin } from 'esbuild';

/** The repository root: functions/, package-lock.json and tsconfig.json live there. */
export const PROJECT_ROOT = path.resolve(__dirname, '..', '..');

export type SdkMode = 'bundled' | 'external';

/** How the deployed functions get the AWS SDK v3 clients (the benchmark measures both). */
export const SDK_MODE: SdkMode = 'bundled';

/** Every folder of `functions/` with a `handler.ts`: one Lambda each. */
export function functionFolders(): string[] {
  const root = path.join(PROJECT_ROOT, 'functions');
  return fs
    .readdirSync(root)
    .filter((name) => fs.existsSync(path.join(root, name, 'handler.ts')))
    .sort();
}

export interface FunctionBundle {
  folder: string;
  /** The asset directory: `index.js`, `index.js.map` and static files. */
  directory: string;
  /** Size of `index.js` in bytes. */
  bytes: number;
  /** Sizes of the static files read at run time (not `index.js` or its source map). */
  staticFiles: Record<string, number>;
  metafile: Metafile;
}

export interface BuildFunctionBundlesOptions {
  outdir: string;
  /** @default every function folder */
  folders?: string[];
  /** @default SDK_MODE */
  sdk?: SdkMode;
}

/** The environment-only credential provider bundled in place of the SDK's full chain. */
const LAMBDA_CREDENTIAL_PROVIDER = path.join(__dirname, 'lambda-credential-provider.ts');
const OPENAPI_SOURCE = path.join(PROJECT_ROOT, 'functions', 'api-fallback', 'openapi-document.ts');
export const OPENAPI_ASSET = 'openapi.json';
const ICONV_TABLES_DIRECTORY = 'iconv-lite-tables';

/** The bundled stand-in for `openapi-document.ts`: the same export, read from the static file. */
const OPENAPI_BUNDLED_MODULE = `
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
let document;
export function openApiDocument() {
  document ??= JSON.parse(readFileSync(join(__dirname, ${JSON.stringify(OPENAPI_ASSET)}), 'utf8'));
  return document;
}
`;

function openApiAssetPlugin(): Plugin {
  return {
    name: 'openapi-static-asset',
    setup(build) {
      build.onLoad({ filter: /[\\/]functions[\\/]api-fallback[\\/]openapi-document\.ts$/ }, (args) =>
        path.resolve(args.path) === OPENAPI_SOURCE ? { contents: OPENAPI_BUNDLED_MODULE, loader: 'js', resolveDir: path.dirname(args.path) } : undefined,
      );
    },
  };
}

type PhoneMetadata = { countries: Record<string, unknown[]>; nonGeographic?: Record<string, unknown[]> } & Record<string, unknown>;

/** Index of the national formatting rules in a country of libphonenumber-js's compressed metadata (version 4). */
const PHONE_FORMATS_INDEX = 4;

/** libphonenumber-js's `min` metadata without the formatting rules, which parsing never reads. */
export function phoneMetadataForParsing(metadata: PhoneMetadata): PhoneMetadata {
  const strip = (entries: Record<string, unknown[]> | undefined) =>
    entries &&
    Object.fromEntries(
      Object.entries(entries).map(([key, country]) => [key, country.map((value, index) => (index === PHONE_FORMATS_INDEX ? [] : value))]),
    );
  return { ...metadata, countries: strip(metadata.countries)!, ...(metadata.nonGeographic ? { nonGeographic: strip(metadata.nonGeographic) } : {}) };
}

function phoneMetadataPlugin(): Plugin {
  return {
    name: 'phone-metadata-for-parsing',
    setup(build) {
      build.onLoad({ filter: /[\\/]libphonenumber-js[\\/]metadata\.min\.json\.js$/ }, () => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const metadata = require('libphonenumber-js/metadata.min.json') as PhoneMetadata;
        return { contents: `export default ${JSON.stringify(phoneMetadataForParsing(metadata))}`, loader: 'js' };
      });
    },
  };
}

/** The functions that answer the lists' labels (`GET /lists/{name}`); every other one validates values only. */
const LIST_LABEL_FOLDERS = new Set(['lists']);
const SYSTEM_LIST_DATA_SOURCE = path.join(PROJECT_ROOT, 'shared', 'lists', 'system-list-data.ts');

/** The system lists as a function that never answers labels needs them: each entry's value alone. */
export async function systemListValuesOnly(): Promise<Record<string, Array<{ value: string }>>> {
  const { SYSTEM_LISTS } = await import('../../shared/lists/system-list-data');
  return Object.fromEntries(Object.entries(SYSTEM_LISTS).map(([name, entries]) => [name, entries.map(({ value }) => ({ value }))]));
}

/** The lists' labels (in English and Hebrew, a third of a mortgage-file bundle's own code) only where they are answered. */
function systemListValuesPlugin(folder: string): Plugin {
  return {
    name: 'system-list-values',
    setup(build) {
      if (LIST_LABEL_FOLDERS.has(folder)) return;
      build.onLoad({ filter: /[\\/]shared[\\/]lists[\\/]system-list-data\.ts$/ }, async (args) =>
        path.resolve(args.path) === SYSTEM_LIST_DATA_SOURCE ? { contents: `export const SYSTEM_LISTS = ${JSON.stringify(await systemListValuesOnly())};`, loader: 'js' } : undefined,
      );
    },
  };
}

/** iconv-lite's `require("./tables/x.json")`: left to run time, the table copied next to the bundle. */
function iconvTablesPlugin(tables: Map<string, string>): Plugin {
  return {
    name: 'iconv-lite-tables-as-files',
    setup(build) {
      build.onResolve({ filter: /^\.\/tables\/[\w-]+\.json$/ }, (args) => {
        if (!/[\\/]iconv-lite[\\/]encodings[\\/]/.test(args.importer)) return undefined;
        const name = path.basename(args.path);
        tables.set(name, path.join(args.resolveDir, args.path));
        return { path: `./${ICONV_TABLES_DIRECTORY}/${name}`, external: true };
      });
    },
  };
}

function buildOptions(entry: string, directory: string, sdk: SdkMode, plugins: Plugin[]): BuildOptions {
  return {
    absWorkingDir: PROJECT_ROOT,
    entryPoints: [entry],
    outfile: path.join(directory, 'index.js'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    mainFields: ['module', 'main'],
    minify: true,
    charset: 'utf8',
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    external: sdk === 'external' ? ['@aws-sdk/*'] : [],
    alias: sdk === 'bundled' ? { '@aws-sdk/credential-provider-node': LAMBDA_CREDENTIAL_PROVIDER } : {},
    plugins,
    logLevel: 'silent',
  };
}

/** Source paths relative to the repository, so the asset (and its hash) is the same wherever it is built. */
function rewriteSourceMap(directory: string): void {
  const file = path.join(directory, 'index.js.map');
  const map = JSON.parse(fs.readFileSync(file, 'utf8')) as { sources: string[] };
  map.sources = map.sources.map((source) => path.relative(PROJECT_ROOT, path.resolve(directory, source)).split(path.sep).join('/'));
  fs.writeFileSync(file, JSON.stringify(map));
}

/** The OpenAPI document, generated from the route groups' zod schemas (in this process). */
async function openApiDocumentJson(): Promise<string> {
  const source = (await import('../../functions/api-fallback/openapi-document')) as { openApiDocument(): unknown };
  return JSON.stringify(source.openApiDocument());
}

export async function buildFunctionBundles(options: BuildFunctionBundlesOptions): Promise<FunctionBundle[]> {
  const esbuild = await import('esbuild');
  const sdk = options.sdk ?? SDK_MODE;
  const folders = options.folders ?? functionFolders();
  return Promise.all(
    folders.map(async (folder) => {
      const directory = path.join(options.outdir, folder);
      fs.rmSync(directory, { recursive: true, force: true });
      fs.mkdirSync(directory, { recursive: true });
      const tables = new Map<string, string>();
      const entry = path.join(PROJECT_ROOT, 'functions', folder, 'handler.ts');
      const result = await esbuild.build(buildOptions(entry, directory, sdk, [openApiAssetPlugin(), phoneMetadataPlugin(), systemListValuesPlugin(folder), iconvTablesPlugin(tables)]));
      const metafile = result.metafile!;
      rewriteSourceMap(directory);
      const staticFiles: Record<string, number> = {};
      if (Object.keys(metafile.inputs).some((input) => path.resolve(PROJECT_ROOT, input) === OPENAPI_SOURCE)) {
        fs.writeFileSync(path.join(directory, OPENAPI_ASSET), await openApiDocumentJson());
        staticFiles[OPENAPI_ASSET] = fs.statSync(path.join(directory, OPENAPI_ASSET)).size;
      }
      for (const [name, source] of [...tables].sort()) {
        const target = path.join(directory, ICONV_TABLES_DIRECTORY, name);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.copyFileSync(source, target);
        staticFiles[`${ICONV_TABLES_DIRECTORY}/${name}`] = fs.statSync(target).size;
      }
      const bytes = fs.statSync(path.join(directory, 'index.js')).size;
      return { folder, directory, bytes, staticFiles, metafile };
    }),
  );
}

/** The baseline for module-load times: a hello-world handler built exactly like the functions. */
/** A one-file handler built exactly as the functions are; returns its output directory. */
async function buildProbeBundle(outdir: string, name: string, source: string): Promise<string> {
  const esbuild = await import('esbuild');
  const directory = path.join(outdir, name);
  const { entryPoints: _entry, ...options } = buildOptions(path.join(PROJECT_ROOT, `${name}.ts`), directory, SDK_MODE, []);
  // Resolved from the repository, as a function's own entry point is.
  await esbuild.build({ ...options, stdin: { contents: source, loader: 'ts', resolveDir: PROJECT_ROOT, sourcefile: `${name}.ts` } });
  return directory;
}

/** The module-load baseline: a handler that imports nothing. */
export function buildHelloWorldBundle(outdir: string): Promise<string> {
  return buildProbeBundle(outdir, 'hello-world', "export const handler = async () => ({ statusCode: 200, body: 'hello world' });\n");
}

/**
 * The floor under every function that reads the table: the service's own DynamoDB document client
 * (shared/storage/dynamo-client.ts) and logger, and nothing else. What a function loads beyond
 * this floor is its own code, zod and its other libraries.
 */
export function buildTableClientFloorBundle(outdir: string): Promise<string> {
  const shared = (file: string) => `'./shared/${file}'`;
  return buildProbeBundle(
    outdir,
    'table-client-floor',
    [
      "import { GetCommand } from '@aws-sdk/lib-dynamodb';",
      `import { getDocumentClient, getTableName } from ${shared('storage/dynamo-client')};`,
      `import { getLogger } from ${shared('logger')};`,
      "export const handler = async () => { getLogger().info('get'); return getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: { pk: 'a', sk: 'b' } })); };",
      '',
    ].join('\n'),
  );
}

export interface Contributor {
  /** A package (`zod`, `@aws-sdk/client-dynamodb`) or a source folder (`functions/leads`, `shared/http`). */
  name: string;
  bytes: number;
}

/** What a bundle's `index.js` is made of, by package or source folder, largest first. */
export function topContributors(metafile: Metafile, limit = 8): Contributor[] {
  const output = Object.entries(metafile.outputs).find(([file]) => file.endsWith('index.js'));
  if (!output) throw new Error('the metafile has no index.js output');
  const totals = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output[1].inputs)) {
    const inPackage = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    const name = inPackage ? inPackage[1] : input.split('/').slice(0, 2).join('/').replace(/\.ts$/, '');
    totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
  }
  return [...totals]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, limit);
}

let built: Map<string, string> | undefined;

/**
 * For CDK, which builds constructs synchronously: every bundle, built once per process by
 * `build-function-bundles.ts` in a child process (esbuild plugins need the asynchronous API) into
 * a temporary directory that is removed when the process exits. `Code.fromAsset` copies the files
 * into the cloud assembly when the function is constructed.
 */
export function functionBundleDirectory(folder: string): string {
  if (!built) {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'mortgage-lambda-bundles-'));
    process.once('exit', () => fs.rmSync(outdir, { recursive: true, force: true }));
    execFileSync(process.execPath, ['--import', 'tsx', path.join(__dirname, 'build-function-bundles.ts'), outdir], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    built = new Map(functionFolders().map((name) => [name, path.join(outdir, name)]));
  }
  const directory = built.get(folder);
  if (!directory || !fs.existsSync(path.join(directory, 'index.js'))) throw new Error(`no bundle was built for functions/${folder}`);
  return directory;
}
