import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { withLambdaContext } from '../../shared/lambda-handler';
import { getLogger, stackFrames } from '../../shared/logger';
import { deliveryWakeSchema } from '../../shared/webhooks/delivery-queue';
import { attemptDelivery, batchEndpointReader } from './attempt-delivery';

/**
 * The delivery worker: each SQS message wakes one delivery. Messages are handled concurrently
 * (a slow receiver does not hold up the others) and share one consistent read per endpoint; a
 * message whose attempt could not run or be recorded is reported in `batchItemFailures` and comes
 * back after the visibility timeout.
 */
async function deliverBatch(event: SQSEvent): Promise<SQSBatchResponse> {
  const logger = getLogger();
  const endpoints = batchEndpointReader();
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
      return attemptDelivery(wake.data, { endpoints });
    }),
  );
  const batchItemFailures: SQSBatchItemFailure[] = [];
  results.forEach((result, index) => {
    const messageId = event.Records[index].messageId;
    if (result.status === 'rejected') {
      // The message may quote data (a receiver's address, stored values); log the error's name and frames only.
      const error = result.reason as Error | undefined;
      logger.error('webhook delivery failed', { message_id: messageId, errorName: error?.name, frames: stackFrames(error) });
      batchItemFailures.push({ itemIdentifier: messageId });
    } else if (result.value === 'retry_later') {
      batchItemFailures.push({ itemIdentifier: messageId });
    }
  });
  return { batchItemFailures };
}

/** Every log line of an invocation carries the Lambda context (request id, function name, cold start). */
export const handler = withLambdaContext(deliverBatch);
