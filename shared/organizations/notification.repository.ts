import { newId } from '../ids';
import { getTableName } from '../storage/dynamo-client';
import { expiresInDays, keys, withoutStorageAttributes } from '../storage/keys';
import { getLogger } from '../logger';
import { batchWriteAll, queryAll } from '../storage/paginated-requests';
import { TRANSACTION_ITEMS_MAX } from '../storage/transaction-limit';
import type { TransactItem } from '../storage/transactions';

export const NOTIFICATION_RETENTION_DAYS = 90;

export interface NotificationInput {
  organization_id: string;
  type: string;
  title: string;
  record_type?: string;
  record_id?: string;
  /** What a fired reminder's notification names besides its record (resources.md §9.2). */
  reminder_id?: string;
  mortgage_file_id?: string;
}

/** An in-app notification as a transaction item, written together with what caused it. */
export function notificationPut(userId: string, input: NotificationInput, at = new Date().toISOString()): TransactItem {
  const id = newId();
  return {
    Put: {
      TableName: getTableName(),
      Item: {
        ...keys.notification(userId, at, id),
        entity: 'notification',
        id,
        user_id: userId,
        ...input,
        record_type: input.record_type ?? null,
        record_id: input.record_id ?? null,
        is_read: false,
        created_at: at,
        expires_at: expiresInDays(NOTIFICATION_RETENTION_DAYS),
      },
    },
  };
}

export async function listNotifications(userId: string): Promise<Record<string, unknown>[]> {
  const items = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk',
    // Past their 90 days but not yet removed by TTL (which may take days): not shown.
    FilterExpression: 'expires_at > :now',
    ExpressionAttributeValues: { ':pk': keys.notificationsOfUser(userId), ':now': Math.floor(Date.now() / 1000) },
    ScanIndexForward: false,
  });
  return items.map((item) => withoutStorageAttributes(item));
}

/**
 * The admins' notifications of a write whose transaction already holds `others` items: as many as
 * fit go into it (all of them, unless the organization has close to 100 admins), and `rest` writes
 * the others once it has committed. The write is accepted by then; a failure of `rest` is logged.
 */
export function notificationsAlong(puts: TransactItem[], others: number): { inTransaction: TransactItem[]; rest: () => Promise<void> } {
  const room = Math.max(0, TRANSACTION_ITEMS_MAX - others);
  const later = puts.slice(room);
  return {
    inTransaction: puts.slice(0, room),
    rest: async () => {
      if (later.length === 0) return;
      await batchWriteAll(later.map((put) => ({ PutRequest: { Item: put.Put!.Item as Record<string, unknown> } }))).catch((error: unknown) =>
        getLogger().error('notifications after a committed write failed', { error_name: (error as Error)?.name, count: later.length }),
      );
    },
  };
}
