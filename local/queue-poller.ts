import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';

export interface QueuePollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: (event: SQSEvent) => Promise<SQSBatchResponse | void>;
  /** Batches handled at once, like concurrent Lambda invocations. */
  concurrency?: number;
  /** A failed message is visible again after this long (AWS: the queue's visibility timeout). */
  retryAfterSeconds?: number;
}

export interface Poller {
  stop(): Promise<void>;
}

function toRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

/**
 * The local SQS event source: long-polls the queue, hands the handler `SQSEvent` batches of up to
 * ten, deletes what succeeded, and makes the `batchItemFailures` visible again for a retry.
 */
export function startQueuePoller(options: QueuePollerOptions): Poller {
  const abort = new AbortController();
  let stopping = false;

  const settle = async (messages: Message[], failedIds: Set<string>) => {
    const succeeded = messages.filter((message) => !failedIds.has(message.MessageId!));
    const failed = messages.filter((message) => failedIds.has(message.MessageId!));
    if (succeeded.length > 0) {
      await options.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: succeeded.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })),
        }),
      );
    }
    if (failed.length > 0) {
      await options.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: failed.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle!,
            VisibilityTimeout: options.retryAfterSeconds ?? 1,
          })),
        }),
      );
    }
  };

  const loop = async () => {
    while (!stopping) {
      try {
        const received = await options.client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        );
        const messages = received.Messages ?? [];
        if (messages.length === 0) continue;
        let failedIds: Set<string>;
        try {
          const response = await options.handler({ Records: messages.map((message) => toRecord(message, options.queueArn)) });
          failedIds = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
        } catch {
          failedIds = new Set(messages.map((message) => message.MessageId!));
        }
        await settle(messages, failedIds);
      } catch {
        if (stopping) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };

  const loops = Array.from({ length: options.concurrency ?? 4 }, () => loop());
  return {
    stop: async () => {
      stopping = true;
      abort.abort();
      await Promise.allSettled(loops);
    },
  };
}
