import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { parsePhoneNumberFromString as parseWithMetadata, type CountryCode, type MetadataJson } from 'libphonenumber-js/core';
import {
  buildFunctionBundles,
  functionFolders,
  OPENAPI_ASSET,
  phoneMetadataForParsing,
  SDK_MODE,
  systemListValuesOnly,
  topContributors,
  type FunctionBundle,
} from '../../lib/bundling/function-bundles';
import { listValues, SYSTEM_LISTS, type SystemListName } from '../../shared/lists/system-lists';
import { openApiDocument } from '../../functions/api-fallback/openapi-document';

/*
 * The real bundles, built by the same build CDK deploys (lib/bundling/function-bundles.ts), once
 * for this file. Sizes are those of each asset's index.js; KB = 1,000 bytes.
 */
const KB = 1000;

/**
 * Issue 12's budget with the AWS SDK v3 clients bundled in: at most 600 KB per function, and
 * 120 KB for the fallback (GET /openapi.json and the JSON 404), which loads no SDK client and no
 * classic zod: its one schema, the configuration's, is written with zod/mini.
 */
const DEFAULT_BUDGET_KB = 600;
const BUDGET_KB: Record<string, number> = { 'api-fallback': 120 };

let outdir: string;
let bundles: FunctionBundle[];

beforeAll(async () => {
  outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-size-'));
  bundles = await buildFunctionBundles({ outdir });
}, 120_000);

afterAll(() => {
  if (outdir) fs.rmSync(outdir, { recursive: true, force: true });
});

const bundleOf = (folder: string) => bundles.find((bundle) => bundle.folder === folder)!;

describe('Lambda bundle sizes (issue 12)', () => {
  test('every function folder is built, with the SDK clients bundled (the deployed mode)', () => {
    expect(SDK_MODE).toBe('bundled');
    expect(bundles.map((bundle) => bundle.folder)).toEqual(functionFolders());
    expect(functionFolders().length).toBeGreaterThanOrEqual(12);
  });

  test('no bundle grows past its budget (the message names its largest contributors)', () => {
    const over = bundles
      .filter((bundle) => bundle.bytes > (BUDGET_KB[bundle.folder] ?? DEFAULT_BUDGET_KB) * KB)
      .map((bundle) => ({
        function: bundle.folder,
        kb: Math.round(bundle.bytes / KB),
        budgetKb: BUDGET_KB[bundle.folder] ?? DEFAULT_BUDGET_KB,
        largest: topContributors(bundle.metafile, 5).map((entry) => `${entry.name} ${Math.round(entry.bytes / KB)} KB`),
      }));
    expect(over).toEqual([]);
  });

  test('the fallback carries no SDK client, no route group and no classic zod (only the configuration\'s zod/mini)', () => {
    const inputs = Object.keys(bundleOf('api-fallback').metafile.inputs);
    expect(inputs.filter((input) => /node_modules\/(@aws-sdk|@smithy)\//.test(input))).toEqual([]);
    expect(inputs.filter((input) => /^functions\/(?!api-fallback\/)/.test(input))).toEqual([]);
    expect(inputs.filter((input) => /libphonenumber-js|iconv-lite/.test(input))).toEqual([]);
    expect(inputs.filter((input) => /node_modules\/zod\/(v4\/)?classic\//.test(input))).toEqual([]);
  });

  test('no function imports its own modules on demand (esbuild would wrap them, and what they reach, in lazy initialisers and keep whole packages)', () => {
    const onDemand = bundles.flatMap((bundle) =>
      Object.entries(bundle.metafile.inputs).flatMap(([input, { imports }]) =>
        imports.filter((entry) => entry.kind === 'dynamic-import' && !input.startsWith('node_modules/') && !entry.external).map((entry) => `${bundle.folder}: ${input} -> ${entry.path}`),
      ),
    );
    expect(onDemand).toEqual([]);
    // The DynamoDB client's aggregated class (every command and waiter) is what such wrapping kept.
    const inOutput = (bundle: FunctionBundle) => Object.entries(Object.entries(bundle.metafile.outputs).find(([file]) => file.endsWith('index.js'))![1].inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([input]) => input);
    const aggregated = bundles.filter((bundle) => inOutput(bundle).some((input) => input.endsWith('@aws-sdk/client-dynamodb/dist-es/DynamoDB.js')));
    expect(aggregated.map((bundle) => bundle.folder)).toEqual([]);
  });

  test('only the intake carries iconv-lite, and its double-byte tables are files next to the bundle, not code', () => {
    for (const bundle of bundles) {
      const carries = Object.keys(bundle.metafile.inputs).some((input) => input.includes('node_modules/iconv-lite/'));
      expect({ function: bundle.folder, carries }).toEqual({ function: bundle.folder, carries: bundle.folder === 'intake' });
    }
    const intake = bundleOf('intake');
    expect(Object.keys(intake.metafile.inputs).filter((input) => input.includes('iconv-lite/') && input.endsWith('.json'))).toEqual([]);
    expect(Object.keys(intake.staticFiles)).toEqual(expect.arrayContaining(['iconv-lite-tables/cp936.json', 'iconv-lite-tables/shiftjis.json']));
  });
});

describe('what the build puts in place of source modules behaves like the source', () => {
  test('the lists\' labels are only in the lists function; every other one keeps every value of every list, in order', async () => {
    const values = await systemListValuesOnly();
    for (const name of Object.keys(SYSTEM_LISTS) as SystemListName[]) expect(values[name].map(({ value }) => value)).toEqual(listValues(name));
    for (const bundle of bundles) {
      const code = fs.readFileSync(path.join(bundle.directory, 'index.js'), 'utf8');
      const labels = code.includes('ידוע/ה בציבור') || code.includes('Common-law partner');
      expect({ function: bundle.folder, labels }).toEqual({ function: bundle.folder, labels: bundle.folder === 'lists' });
    }
    // The values are still there, where the validators need them.
    for (const folder of ['mortgage-files', 'customers', 'lists']) {
      expect({ folder, values: fs.readFileSync(path.join(bundleOf(folder).directory, 'index.js'), 'utf8').includes('"common_law"') }).toEqual({ folder, values: true });
    }
  });

  test('the bundled fallback serves GET /openapi.json from its static asset: exactly the document built from the schemas', async () => {
    const fallback = bundleOf('api-fallback');
    expect(fallback.staticFiles[OPENAPI_ASSET]).toBeGreaterThan(0);
    const module = require(path.join(fallback.directory, 'index.js')) as {
      handler(event: APIGatewayProxyEventV2, context: Context): Promise<{ statusCode: number; body: string; headers: Record<string, string> }>;
    };
    const event = { rawPath: '/openapi.json', headers: {}, requestContext: { http: { method: 'GET' } } } as unknown as APIGatewayProxyEventV2;
    const context = { functionName: 'api-fallback', awsRequestId: 'test', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;
    const response = await module.handler(event, context);
    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body)).toEqual(openApiDocument());

    const missing = await module.handler({ ...event, rawPath: '/no-such-path' }, context);
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ error: 'Not found', status: 404 });
  });

  test('phone numbers: the bundled metadata (no formatting rules) normalizes every country\'s example number as the full min metadata does', () => {
    const metadata = require('libphonenumber-js/metadata.min.json') as MetadataJson;
    const stripped = phoneMetadataForParsing(metadata as never) as unknown as MetadataJson;
    expect(JSON.stringify(stripped).length).toBeLessThan(JSON.stringify(metadata).length * 0.5);
    const examples = require('libphonenumber-js/examples.mobile.json') as Record<string, string>;
    const differences: string[] = [];
    let compared = 0;
    for (const [country, national] of Object.entries(examples)) {
      const callingCode = (metadata.countries as Record<string, unknown[]>)[country]?.[0];
      // National form (default country Israel, then the number's own country) and international form.
      const inputs: Array<[string, CountryCode]> = [
        [national, 'IL'],
        [national, country as CountryCode],
        [`+${callingCode}${national}`, 'IL'],
        [`+${callingCode} ${national.slice(0, 3)}-${national.slice(3)}`, 'IL'],
      ];
      for (const [input, defaultCountry] of inputs) {
        const full = parsePhoneNumberFromString(input, defaultCountry);
        const ours = parseWithMetadata(input, defaultCountry, stripped);
        const summary = (parsed: typeof full) => (parsed ? `${parsed.number} ${parsed.isPossible()} ${parsed.country ?? '-'}` : 'none');
        compared += 1;
        if (summary(full) !== summary(ours)) differences.push(`${input} (${defaultCountry}): ${summary(full)} vs ${summary(ours)}`);
      }
    }
    // Israeli forms the intake and API see every day.
    for (const input of ['050-123-4567', '0501234567', '+972 50-123-4567', '972501234567', '03-1234567', '1-800-123-456']) {
      const full = parsePhoneNumberFromString(input, 'IL');
      const ours = parseWithMetadata(input, 'IL', stripped);
      compared += 1;
      if (full?.number !== ours?.number || full?.isPossible() !== ours?.isPossible()) differences.push(input);
    }
    expect(compared).toBeGreaterThan(800);
    expect(differences).toEqual([]);
  });
});
