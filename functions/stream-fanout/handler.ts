import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { streamChangeFromRecord } from '../../shared/events/stream-change';
import { withLambdaContext } from '../../shared/lambda-handler';
import { getLogger } from '../../shared/logger';
import { EndpointCache, fanOutChange } from './fan-out-change';

/** Records fanned out at once. Delivery order is not guaranteed (spec §6), so they need not wait for each other. */
const CONCURRENCY = 10;

/**
 * DynamoDB stream consumer (ReportBatchItemFailures). Records are handled a few at a time; the
 * earliest record that failed is reported, so the source retries from it. Records after it that
 * did succeed are handled again on that retry and create nothing twice (deterministic delivery
 * ids, conditional puts).
 */
async function fanOutBatch(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const endpoints = new EndpointCache();
  const failed = new Array<boolean>(event.Records.length).fill(false);
  let next = 0;
  const work = async () => {
    while (next < event.Records.length) {
      const index = next++;
      const record = event.Records[index];
      const change = streamChangeFromRecord(record);
      if (!change) continue;
      try {
        await fanOutChange(change, endpoints);
      } catch (error) {
        failed[index] = true;
        // The message may quote record values; log the error's name and frames only.
        getLogger().error('stream record fanout failed', {
          event_id: record.eventID,
          sequence_number: record.dynamodb?.SequenceNumber,
          errorName: (error as Error)?.name,
          frames: (error as Error)?.stack?.split('\n').slice(1, 8).join('\n'),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, event.Records.length) }, work));
  const first = failed.indexOf(true);
  if (first < 0) return { batchItemFailures: [] };
  return { batchItemFailures: [{ itemIdentifier: event.Records[first].dynamodb?.SequenceNumber ?? '' }] };
}

/** Every log line of an invocation carries the Lambda context (request id, function name, cold start). */
export const handler = withLambdaContext(fanOutBatch);
