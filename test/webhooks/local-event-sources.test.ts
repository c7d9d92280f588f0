import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, SQSEvent, SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { startQueuePoller } from '../../local/queue-poller';
import { createLocalQueue, localSqsClient } from '../../local/sqs-server';
import { startStreamPoller } from '../../local/stream-poller';
import { ensureTable, localDynamoClient } from '../../local/table';
import { eventually } from './receiver';

// The local stand-ins for Lambda's event sources, on the suite's DynamoDB Local and SQS server.
const dynamoDbEndpoint = process.env.TEST_DYNAMODB_ENDPOINT!;
const sqsEndpoint = process.env.TEST_SQS_ENDPOINT!;

describe('design "Shape": the local SQS poller', () => {
  test('design: SQSEvent batches; messages in batchItemFailures come back, the others are deleted', async () => {
    const sqs = localSqsClient(sqsEndpoint);
    const queue = await createLocalQueue(sqs, 'poller-test', 30);
    const seen: SQSRecord[] = [];
    let failOnce = true;
    const poller = startQueuePoller({
      client: sqs,
      queueUrl: queue.url,
      queueArn: queue.arn,
      concurrency: 1,
      handler: async (event: SQSEvent) => {
        seen.push(...event.Records);
        const failing = event.Records.filter((record) => record.body === 'fails-once' && failOnce);
        if (failing.length > 0) failOnce = false;
        return { batchItemFailures: failing.map((record) => ({ itemIdentifier: record.messageId })) };
      },
    });
    try {
      await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queue.url,
          Entries: [
            { Id: '1', MessageBody: 'fine' },
            { Id: '2', MessageBody: 'fails-once' },
          ],
        }),
      );
      await eventually(async () => seen.length, (count) => count >= 3, 10_000);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const bodies = seen.map((record) => record.body);
      expect(bodies.filter((body) => body === 'fine')).toHaveLength(1);
      expect(bodies.filter((body) => body === 'fails-once')).toHaveLength(2);
      const retried = seen.filter((record) => record.body === 'fails-once');
      expect(retried[1].messageId).toBe(retried[0].messageId);
      expect(retried[1].attributes.ApproximateReceiveCount).toBe('2');
      expect(retried[0]).toMatchObject({ eventSource: 'aws:sqs', eventSourceARN: queue.arn });
    } finally {
      await poller.stop();
      await queue.delete();
      sqs.destroy();
    }
  });
});

describe('design "Shape": the local DynamoDB stream poller', () => {
  test('design: DynamoDBStreamEvent batches of real records; after a batch item failure the source retries from that record', async () => {
    const tableName = `stream-test-${randomUUID()}`;
    await ensureTable(dynamoDbEndpoint, tableName);
    const dynamoDb = localDynamoClient(dynamoDbEndpoint);
    const calls: DynamoDBRecord[][] = [];
    let failed = false;
    const poller = startStreamPoller({
      endpoint: dynamoDbEndpoint,
      tableName,
      dynamoDb,
      idleMs: 50,
      handler: async (event) => {
        calls.push(event.Records);
        const second = event.Records.find((record) => record.dynamodb?.Keys?.pk?.S === 'item-2');
        if (second && !failed) {
          failed = true;
          return { batchItemFailures: [{ itemIdentifier: second.dynamodb!.SequenceNumber! }] };
        }
        return { batchItemFailures: [] };
      },
    });
    try {
      for (const pk of ['item-1', 'item-2', 'item-3']) {
        await dynamoDb.send(new PutItemCommand({ TableName: tableName, Item: { pk: { S: pk }, sk: { S: 'x' }, settings: { M: {} } } }));
      }
      const handledKeys = () => calls.flat().map((record) => record.dynamodb?.Keys?.pk?.S);
      await eventually(
        async () => handledKeys(),
        (keys) => keys.includes('item-3') && keys.filter((key) => key === 'item-2').length === 2,
        15_000,
      );
      // The retry is the failed record and whatever followed it in its batch, never what came before.
      const failedCall = calls.findIndex((records) => records.some((record) => record.dynamodb?.Keys?.pk?.S === 'item-2'));
      expect(calls[failedCall + 1][0].dynamodb?.Keys?.pk?.S).toBe('item-2');
      expect(handledKeys().filter((key) => key === 'item-1')).toHaveLength(1);
      const record = calls.flat().find((entry) => entry.dynamodb?.Keys?.pk?.S === 'item-1')!;
      expect(record).toMatchObject({ eventName: 'INSERT', eventSource: 'aws:dynamodb' });
      expect(typeof record.dynamodb?.ApproximateCreationDateTime).toBe('number');
      expect(record.dynamodb?.NewImage?.settings).toEqual({ M: {} });
    } finally {
      await poller.stop();
      dynamoDb.destroy();
    }
  });
});
