import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getLogger } from '../../shared/logger';
import { deliveryWakeSchema } from '../../shared/webhooks/delivery-queue';
import { attemptDelivery } from './attempt-delivery';

/**
 * The delivery worker: each SQS message wakes one delivery. Messages are handled concurrently
 * (a slow receiver does not hold up the others); a message whose attempt could not run or be
 * recorded is reported in `batchItemFailures` and comes back after the visibility timeout.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const logger = getLogger();
  const results = await Promise.allSettled(
    event.Records.map(async (record) => {
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        body = undefined;
      }
      const wake = deliveryWakeSchema.safeParse(body);
      if (!wake.success) {
        // Retrying cannot fix a malformed message; drop it.
        logger.warn('malformed delivery wake dropped', { message_id: record.messageId });
        return 'done' as const;
      }
      return attemptDelivery(wake.data);
    }),
  );
  const batchItemFailures: SQSBatchItemFailure[] = [];
  results.forEach((result, index) => {
    const messageId = event.Records[index].messageId;
    if (result.status === 'rejected') {
      logger.error('webhook delivery failed', { message_id: messageId, errorName: (result.reason as Error)?.name, error: (result.reason as Error)?.message });
      batchItemFailures.push({ itemIdentifier: messageId });
    } else if (result.value === 'retry_later') {
      batchItemFailures.push({ itemIdentifier: messageId });
    }
  });
  return { batchItemFailures };
};
