import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { streamChangeFromRecord } from '../../shared/events/stream-change';
import { withLambdaContext } from '../../shared/lambda-handler';
import { getLogger, stackFrames } from '../../shared/logger';
import { fanOutChanges } from './fan-out-change';

/**
 * DynamoDB stream consumer (ReportBatchItemFailures). The whole batch is fanned out together: the
 * organizations' endpoint lists read once (and kept a few seconds), the deliveries of every record
 * written in one transaction per hundred, their wake-ups sent ten per SendMessageBatch. The
 * earliest record that failed is reported, so the source retries from it. Records after it that
 * did succeed are handled again on that retry and create nothing twice (deterministic delivery
 * ids, conditional puts).
 */
async function fanOutBatch(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const changes = event.Records.map((record) => streamChangeFromRecord(record));
  const errors = await fanOutChanges(changes);
  const first = errors.findIndex((error) => error !== undefined);
  if (first < 0) return { batchItemFailures: [] };
  errors.forEach((error, index) => {
    if (error === undefined) return;
    const record = event.Records[index];
    // The message may quote record values; log the error's name and frames only.
    getLogger().error('stream record fanout failed', {
      event_id: record.eventID,
      sequence_number: record.dynamodb?.SequenceNumber,
      errorName: (error as Error)?.name,
      frames: stackFrames(error),
    });
  });
  return { batchItemFailures: [{ itemIdentifier: event.Records[first].dynamodb?.SequenceNumber ?? '' }] };
}

/** Every log line of an invocation carries the Lambda context (request id, function name, cold start). */
export const handler = withLambdaContext(fanOutBatch);
