import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { getDocumentClient, getTableName } from './dynamo-client';
import type { ItemKey } from './keys';

/**
 * Fixed-window request counting on an existing item (`rate_window_start` in ms, `rate_count`):
 * the window opens with the first request and resets `windowMs` later. The common case is one
 * conditional UpdateItem that also returns the whole item, so the item's lookup and the count
 * are one round trip (API keys, intake tokens); opening a new window costs a second one.
 * Returns the item as it is after counting, or undefined when the item does not exist.
 */
export async function countInFixedWindow(key: ItemKey, windowMs: number, now = Date.now()): Promise<Record<string, unknown> | undefined> {
  const client = getDocumentClient();
  const cutoff = now - windowMs;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const counted = await client.send(
        new UpdateCommand({
          TableName: getTableName(),
          Key: key,
          UpdateExpression: 'SET rate_count = rate_count + :one',
          ConditionExpression: 'attribute_exists(pk) AND rate_window_start > :cutoff',
          ExpressionAttributeValues: { ':one': 1, ':cutoff': cutoff },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return counted.Attributes;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      if (!error.Item) return undefined;
      const existing = unmarshall(error.Item);
      if (((existing.rate_window_start as number | undefined) ?? 0) > cutoff) continue; // another request just opened it
    }
    // The window is closed (or never opened): open a new one with this request as its first.
    try {
      const opened = await client.send(
        new UpdateCommand({
          TableName: getTableName(),
          Key: key,
          UpdateExpression: 'SET rate_window_start = :now, rate_count = :one',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(rate_window_start) OR rate_window_start <= :cutoff)',
          ExpressionAttributeValues: { ':one': 1, ':now': now, ':cutoff': cutoff },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return opened.Attributes;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  throw new Error('Rate window could not be updated');
}
