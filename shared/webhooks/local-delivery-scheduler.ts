import { BatchWriteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { expiresInDays, webhookKeys } from '../storage/keys';
import { deliveryWakeSchema, enqueueWakes } from './delivery-queue';
import { scheduleNameFor, type DeliveryScheduler } from './delivery-scheduler';
import type { DeliveryWake } from './webhook-delivery.repository';

/** The local stand-in for EventBridge Scheduler: due wakes are items, fired by `fireDueWakes`. */
export class LocalDeliveryScheduler implements DeliveryScheduler {
  async scheduleWake(wake: DeliveryWake, at: Date): Promise<void> {
    const dueAt = at.toISOString();
    await getDocumentClient().send(
      new PutCommand({
        TableName: getTableName(),
        Item: {
          ...webhookKeys.scheduledWake(dueAt, scheduleNameFor(wake)),
          entity: 'scheduled_wake',
          due_at: dueAt,
          wake,
          expires_at: expiresInDays(3, at.getTime()),
        },
      }),
    );
  }
}

/** Sends every wake that is due to the delivery queue and removes it. Returns how many fired. */
export async function fireDueWakes(now = Date.now()): Promise<number> {
  const client = getDocumentClient();
  const tableName = getTableName();
  const page = await client.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk < :bound',
      ExpressionAttributeValues: { ':pk': webhookKeys.scheduledWakes, ':bound': `${new Date(now).toISOString()}$` },
      Limit: 100,
      ConsistentRead: true,
    }),
  );
  const items = page.Items ?? [];
  if (items.length === 0) return 0;
  const wakes = items.flatMap((item) => {
    const parsed = deliveryWakeSchema.safeParse(item.wake);
    return parsed.success ? [parsed.data] : [];
  });
  await enqueueWakes(wakes);
  for (let start = 0; start < items.length; start += 25) {
    let pending = items.slice(start, start + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
    for (let attempt = 0; pending.length > 0 && attempt < 5; attempt++) {
      const result = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (result.UnprocessedItems?.[tableName] as typeof pending | undefined) ?? [];
    }
  }
  return items.length;
}
