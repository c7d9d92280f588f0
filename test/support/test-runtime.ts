import { randomUUID } from 'node:crypto';
import { runCli } from '../../admin/cli';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../local/runtime';
import { localDynamoClient } from '../../local/table';
import { dynamoEventualTableReads, dynamoRoundTrips } from '../../shared/storage/dynamo-client';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestRuntime extends Runtime {
  tableName: string;
  /** An HTTP call over a real socket to the local API. */
  request<T = any>(method: string, path: string, options?: { key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<TestResponse<T>>;
  /** Runs a `mortgage-admin` command in this process against the test table. */
  admin<T = any>(...args: string[]): Promise<T>;
  /** A fresh organization with an admin user and a key holding `permissions`. */
  organization(permissions?: string): Promise<{ organizationId: string; userId: string; keyId: string; apiKey: string }>;
  /** DynamoDB round trips made by this process so far. */
  roundTrips(): number;
  /** Reads of the table (not an index) made without ConsistentRead by this process so far. */
  eventualTableReads(): number;
}

/**
 * The local runtime in this test process, on free ports, with its own table in the suite's
 * DynamoDB Local (started by the global setup).
 */
export async function startTestRuntime(overrides: Partial<RuntimeOptions> = {}): Promise<TestRuntime> {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests through jest (npm test)');
  const tableName = `test-${randomUUID()}`;
  // Quiet unless a test asks for logs (test/api/logging.test.ts reads them).
  process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL ?? 'SILENT';
  // Every answer of every test is checked against its operation's documented schema (only documented fields).
  process.env.CHECK_RESPONSES = process.env.CHECK_RESPONSES ?? '1';
  const runtime = await startRuntime({
    // Both servers bind a port the OS picks as they listen: nothing can take it in between.
    port: 0,
    intakeDirectPort: 0,
    tableName,
    dynamoDbEndpoint: endpoint,
    sqsEndpoint: process.env.TEST_SQS_ENDPOINT,
    // The reminder poller sweeps ten index shards a second: only the reminder tests turn it on,
    // so the suite's many runtimes do not keep DynamoDB Local busy with it.
    reminders: false,
    ...overrides,
  });

  const admin = async <T>(...args: string[]): Promise<T> => {
    const result = await runCli(args);
    if (result.exitCode !== 0) throw new Error(`mortgage-admin ${args.join(' ')} failed: ${result.stderr}`);
    return JSON.parse(result.stdout!) as T;
  };

  return {
    ...runtime,
    tableName,
    admin,
    roundTrips: dynamoRoundTrips,
    eventualTableReads: dynamoEventualTableReads,
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.key !== undefined) headers['x-api-key'] = options.key;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${runtime.baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed as any, text };
    },
    async organization(permissions = 'admin') {
      const { organization_id } = await admin<{ organization_id: string }>('org', 'create', '--name', `Org ${randomUUID().slice(0, 8)}`);
      const { user_id } = await admin<{ user_id: string }>('user', 'create', '--org', organization_id, '--name', 'Admin', '--email', `admin-${randomUUID().slice(0, 8)}@example.com`, '--role', 'admin');
      const { key_id, api_key } = await admin<{ key_id: string; api_key: string }>('key', 'create', '--org', organization_id, '--user', user_id, '--permissions', permissions);
      return { organizationId: organization_id, userId: user_id, keyId: key_id, apiKey: api_key };
    },
  };
}

/**
 * The suite's tables share one DynamoDB Local, which slows down as its store grows: a test file's
 * table goes when the file is done.
 */
async function dropTable(tableName: string): Promise<void> {
  const client = localDynamoClient(process.env.TEST_DYNAMODB_ENDPOINT!);
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  } catch {
    // Already gone, or the engine is stopping: nothing to clean.
  } finally {
    client.destroy();
  }
}

/**
 * The test file's runtime: started before its first test and stopped after its last. Call it at
 * the top level of a test file; the returned object is usable inside tests and hooks.
 */
export function useTestRuntime(overrides: Partial<RuntimeOptions> = {}): TestRuntime {
  let started: TestRuntime | undefined;
  beforeAll(async () => {
    started = await startTestRuntime(overrides);
  });
  afterAll(async () => {
    if (!started) return;
    await started.stop();
    await dropTable(started.tableName);
  });
  return new Proxy({} as TestRuntime, {
    get(_target, property) {
      if (!started) throw new Error('the test runtime is used before beforeAll started it');
      const value = (started as unknown as Record<PropertyKey, unknown>)[property];
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
}

type CallStep = (call: { commandName: string; input: string }, send: () => Promise<unknown>) => Promise<unknown>;

/**
 * `step` sees every DynamoDB call of this process (its command name and JSON input) for the length
 * of `run`, and decides when and whether to `send` it: the one installer of the helpers below.
 */
async function aroundEveryCall<T>(step: CallStep, run: () => Promise<T>): Promise<T> {
  const { getDocumentClient } = await import('../../shared/storage/dynamo-client');
  const client = getDocumentClient();
  const name = `aroundEveryCall-${randomUUID()}`;
  client.middlewareStack.add(
    (next, context) => async (args) =>
      (await step({ commandName: context.commandName ?? '', input: JSON.stringify((args as { input?: unknown }).input ?? {}) }, () => next(args))) as Awaited<ReturnType<typeof next>>,
    { step: 'initialize', name },
  );
  try {
    return await run();
  } finally {
    client.middlewareStack.remove(name);
  }
}

/** A database error the service must survive, thrown in place of a call. */
function injectedFailure(what: string): Error {
  const error = new Error(`injected failure of ${what}`);
  error.name = 'InternalServerError';
  return error;
}

/**
 * Makes the first DynamoDB call whose input contains every one of `markers` fail (a database error
 * the service must survive), for the length of `run`. Real engine otherwise: only that call fails.
 */
export async function failingOneCall<T>(markers: string[], run: (fired: () => boolean) => Promise<T>): Promise<T> {
  let armed = true;
  return aroundEveryCall(
    async ({ input }, send) => {
      if (!armed || !markers.every((marker) => input.includes(marker))) return send();
      armed = false;
      throw injectedFailure('one database call');
    },
    () => run(() => !armed),
  );
}

/**
 * The process as if stopped right after the first DynamoDB call whose input contains every one of
 * `markers` was answered: every later call of `run` fails. What is stored then is what a hard kill
 * at that moment leaves. `fired()` tells whether the call was made.
 */
export async function stoppedAfterCall<T>(markers: string[], run: (fired: () => boolean) => Promise<T>): Promise<T> {
  let stopped = false;
  return aroundEveryCall(
    async ({ input }, send) => {
      if (stopped) throw injectedFailure('a call after the process stopped');
      const result = await send();
      if (markers.every((marker) => input.includes(marker))) stopped = true;
      return result;
    },
    () => run(() => stopped),
  );
}

/**
 * Makes the first DynamoDB call after a transaction has committed fail, for the length of `run`:
 * a write whose answer still needed the database would be answered 500 although it was made.
 * `fired()` tells whether any call came after the commit at all.
 */
export async function failingFirstCallAfterCommit<T>(run: (fired: () => boolean) => Promise<T>): Promise<T> {
  let committed = false;
  let fired = false;
  return aroundEveryCall(
    async ({ commandName }, send) => {
      if (committed && !fired) {
        fired = true;
        throw injectedFailure('the first call after a commit');
      }
      const result = await send();
      if (commandName === 'TransactWriteItemsCommand') committed = true;
      return result;
    },
    () => run(() => fired),
  );
}

/**
 * Runs `meanwhile` (another request, say) right before the first DynamoDB call whose input contains
 * every one of `markers` is sent, then lets that call go: a race made deterministic. Calls made by
 * `meanwhile` itself pass untouched.
 */
export async function beforeCall<T>(markers: string[], meanwhile: () => Promise<unknown>, run: (fired: () => boolean) => Promise<T>): Promise<T> {
  let armed = true;
  return aroundEveryCall(
    async ({ input }, send) => {
      if (armed && markers.every((marker) => input.includes(marker))) {
        armed = false;
        await meanwhile();
      }
      return send();
    },
    () => run(() => !armed),
  );
}
