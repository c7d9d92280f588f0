import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal, type DynamoDbLocalProcess } from '../../local/dynamodb-local';
import { ensureTable } from '../../local/table';
import { startRuntime } from '../../local/runtime';
import { configureService, getConfig } from '../../shared/config';
import { getDocumentClient, resetDocumentClient } from '../../shared/storage/dynamo-client';
import { freePort } from '../support/free-port';

/**
 * "A hard kill at any moment loses no accepted write": DynamoDB Local answers a transaction before
 * its SQLite COMMIT has run, so with data on disk (`npm start`) the client waits for the commit
 * (`DYNAMODB_COMMIT_BARRIER`, shared/storage/dynamo-client.ts). The engine is killed with SIGKILL
 * while transactions are in flight; every transaction that was answered is there after a restart.
 */
const TABLE = 'durability';
const ITEMS = 8;
let engine: DynamoDbLocalProcess | undefined;
let dataDirectory: string | undefined;

afterAll(async () => {
  await engine?.stop();
  resetDocumentClient();
  if (dataDirectory) rmSync(dataDirectory, { recursive: true, force: true });
});

const portClosed = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

async function start(port: number): Promise<void> {
  engine = await startDynamoDbLocal({ port, dataDirectory });
  configureService({ DYNAMODB_ENDPOINT: engine.endpoint, TABLE_NAME: TABLE, DYNAMODB_COMMIT_BARRIER: '1', DYNAMODB_TIMEOUT_MS: 2_000 });
  await ensureTable(engine.endpoint, TABLE);
}

const transaction = (id: string) =>
  getDocumentClient().send(new TransactWriteCommand({ TransactItems: Array.from({ length: ITEMS }, (_, index) => ({ Put: { TableName: TABLE, Item: { pk: `T#${id}`, sk: `#${index}`, payload: 'x'.repeat(2_000) } } })) }));

test('SIGKILL of the engine right after transactions were answered: every answered transaction is stored after the restart', async () => {
  dataDirectory = mkdtempSync(path.join(os.tmpdir(), 'engine-durability-'));
  const port = await freePort();
  await start(port);

  const answered: string[] = [];
  for (let round = 0; round < 3; round++) {
    let killed = false;
    let answeredThisRound = 0;
    const ids = Array.from({ length: 24 }, (_, index) => `${round}-${index}`);
    await Promise.allSettled(
      ids.map(async (id) => {
        await transaction(id);
        if (killed) return;
        answered.push(id);
        // Killed the moment a few are answered, while the others are still queued in the engine.
        if (++answeredThisRound === 6) {
          killed = true;
          process.kill(engine!.pid!, 'SIGKILL');
        }
      }),
    );
    while (!(await portClosed(port))) await new Promise((resolve) => setTimeout(resolve, 100));
    await start(port);
  }
  expect(answered.length).toBeGreaterThanOrEqual(18);
  const missing: string[] = [];
  for (const id of answered) {
    for (let index = 0; index < ITEMS; index++) {
      const item = await getDocumentClient().send(new GetCommand({ TableName: TABLE, Key: { pk: `T#${id}`, sk: `#${index}` }, ConsistentRead: true }));
      if (!item.Item) missing.push(`${id}#${index}`);
    }
  }
  expect(missing).toEqual([]);
}, 120_000);

test('the local runtime waits for commits only when its data outlives it (npm start; never with --in-memory)', async () => {
  for (const [dataDirectory, expected] of [[mkdtempSync(path.join(os.tmpdir(), 'runtime-data-')), true], [undefined, false]] as const) {
    const runtime = await startRuntime({
      port: 0,
      intakeDirectPort: 0,
      tableName: `barrier-${expected}`,
      dynamoDbEndpoint: process.env.TEST_DYNAMODB_ENDPOINT,
      sqsEndpoint: process.env.TEST_SQS_ENDPOINT,
      dataDirectory,
      events: false,
    });
    try {
      expect(getConfig().DYNAMODB_COMMIT_BARRIER).toBe(expected);
    } finally {
      await runtime.stop();
      if (dataDirectory) rmSync(dataDirectory, { recursive: true, force: true });
    }
  }
});
