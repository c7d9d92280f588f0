import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import * as z from 'zod';
import { configGeneration, getConfig } from '../config';
import type { DeliveryWake } from './webhook-delivery.repository';

/** SQS allows at most 15 minutes of DelaySeconds; longer waits go through the scheduler. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

export const deliveryWakeSchema = z.object({
  organization_id: z.string().min(1),
  endpoint_id: z.string().min(1),
  delivery_id: z.string().min(1),
  attempt: z.number().int().nonnegative().optional(),
});

let client: SQSClient | undefined;
let builtForGeneration = -1;

export function getSqsClient(): SQSClient {
  if (!client || builtForGeneration !== configGeneration()) {
    client?.destroy();
    builtForGeneration = configGeneration();
    const config = getConfig();
    client = new SQSClient({
      region: config.AWS_REGION,
      ...(config.SQS_ENDPOINT
        ? { endpoint: config.SQS_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : // In AWS a stalled call fails (and is retried) well inside the function's timeout.
          { maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true } }),
    });
  }
  return client;
}

/** Drops the cached client so the next call uses the current configuration. */
export function resetSqsClient(): void {
  client?.destroy();
  client = undefined;
}

function queueUrl(): string {
  const url = getConfig().DELIVERY_QUEUE_URL;
  if (!url) throw new Error('DELIVERY_QUEUE_URL is not configured');
  return url;
}

/**
 * Sends wake-up messages for deliveries (ten per SendMessageBatch). The message carries ids only:
 * the delivery item in DynamoDB is the source of truth.
 */
export async function enqueueWakes(wakes: DeliveryWake[], delaySeconds = 0): Promise<void> {
  const delay = Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(delaySeconds)));
  for (let start = 0; start < wakes.length; start += 10) {
    const chunk = wakes.slice(start, start + 10);
    const result = await getSqsClient().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: chunk.map((wake, index) => ({
          Id: String(index),
          MessageBody: JSON.stringify(wake),
          ...(delay > 0 ? { DelaySeconds: delay } : {}),
        })),
      }),
    );
    if (result.Failed && result.Failed.length > 0) {
      throw new Error(`Could not enqueue ${result.Failed.length} delivery wake(s): ${result.Failed[0].Code}`);
    }
  }
}
