import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { MORTGAGE_FILE_TYPE, timelinePut } from '../../functions/mortgage-files/file-rows';
import { notificationPut } from '../organizations/notification.repository';
import { childRowKey } from '../resources/child-collection';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { DUE_REMINDER_SHARDS, entityKeys, reminderKeys } from '../storage/keys';
import { TransactionConditionFailed, transactWrite } from '../storage/transactions';

/** A file reminder's sort key prefix in the file's partition (`REMINDER#<id>`). */
export const REMINDER_TYPE = 'REMINDER';

/**
 * What one arming of a reminder names (the input of its EventBridge schedule): the reminder, and
 * the `remind_at` it was armed for. A reminder moved since is another arming (another schedule).
 */
export const reminderTargetSchema = z.object({
  organization_id: z.uuid(),
  mortgage_file_id: z.uuid(),
  reminder_id: z.uuid(),
  remind_at: z.string().min(1).max(64),
});
export type ReminderTarget = z.infer<typeof reminderTargetSchema>;

export const reminderKey = (target: Pick<ReminderTarget, 'organization_id' | 'mortgage_file_id' | 'reminder_id'>) =>
  childRowKey(MORTGAGE_FILE_TYPE, target.organization_id, target.mortgage_file_id, REMINDER_TYPE, target.reminder_id);

/** An invocation may come a little before the second its `at()` names (clock skew): accepted. */
const EARLY_TOLERANCE_MS = 2_000;

export type FireOutcome = 'fired' | 'not_due' | 'not_armed';

/**
 * Fires one arming of a reminder (resources.md §9.2), the one function every path uses (the local
 * poller, the AWS schedule, the AWS sweeper): in one transaction the reminder becomes `sent` with
 * `sent_at` and leaves the due index, the recipient gets an in-app notification and the file's
 * timeline gets `reminder_sent` (actor null). The write is conditional on the version just read
 * (still `scheduled` at the armed `remind_at`) and on the file still existing, so a reminder moved,
 * cancelled, deleted or fired by a concurrent caller is left alone: exactly once per arming.
 * `known` is the reminder as the sweep read it from the due index: the first attempt relies on it
 * (the transaction's conditions catch anything stale) and only a failed attempt reads it again.
 */
export async function fireReminder(target: ReminderTarget, now = Date.now(), known?: Record<string, unknown>): Promise<FireOutcome> {
  const client = getDocumentClient();
  const key = reminderKey(target);
  for (let attempt = 0; attempt < 3; attempt++) {
    const item = attempt === 0 && known ? known : (await client.send(new GetCommand({ TableName: getTableName(), Key: key, ConsistentRead: true }))).Item;
    if (!item || item.status !== 'scheduled' || item.remind_at !== target.remind_at) return 'not_armed';
    const due = Date.parse(item.remind_at as string);
    if (!(due <= now + EARLY_TOLERANCE_MS)) return 'not_due';
    const at = new Date(Math.max(now, Date.now())).toISOString();
    const version = typeof item.version === 'number' ? item.version : 0;
    try {
      await transactWrite([
        {
          Update: {
            TableName: getTableName(),
            Key: key,
            UpdateExpression: 'SET #status = :sent, sent_at = :at, updated_at = :at, #version = :next REMOVE gsi2pk, gsi2sk',
            ConditionExpression: '#version = :seen AND #status = :scheduled AND remind_at = :armed',
            ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
            ExpressionAttributeValues: { ':sent': 'sent', ':at': at, ':next': version + 1, ':seen': version, ':scheduled': 'scheduled', ':armed': target.remind_at },
          },
        },
        {
          ConditionCheck: {
            TableName: getTableName(),
            Key: entityKeys.record(MORTGAGE_FILE_TYPE, target.organization_id, target.mortgage_file_id),
            ConditionExpression: 'attribute_exists(pk)',
          },
        },
        notificationPut(
          item.recipient_user_id as string,
          {
            organization_id: target.organization_id,
            type: 'reminder',
            title: item.title as string,
            reminder_id: target.reminder_id,
            mortgage_file_id: target.mortgage_file_id,
            record_type: 'reminder',
            record_id: target.reminder_id,
          },
          at,
        ),
        timelinePut(target.organization_id, target.mortgage_file_id, 'reminder_sent', { reminder_id: target.reminder_id }, null, at),
      ]);
      return 'fired';
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      // Changed under us (or the file is gone): read again and decide again.
    }
  }
  return 'not_armed';
}

/** What firing reads of a reminder: the index projects every attribute, so the sweep reads just these. */
const FIRING_ATTRIBUTES = ['organization_id', 'mortgage_file_id', 'id', 'remind_at', '#status', '#version', 'title', 'recipient_user_id'];

/** Reminders due by `now` in one shard of the due index (at most `limit`), with what firing them needs. */
async function dueInShard(shard: number, now: Date, limit: number): Promise<Array<{ target: ReminderTarget; item: Record<string, unknown> }>> {
  const page = await getDocumentClient().send(
    new QueryCommand({
      TableName: getTableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :bound',
      ExpressionAttributeValues: { ':pk': reminderKeys.dueReminders(shard), ':bound': reminderKeys.dueBound(now) },
      ProjectionExpression: FIRING_ATTRIBUTES.join(', '),
      ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
      Limit: limit,
    }),
  );
  return (page.Items ?? []).flatMap((item) => {
    const parsed = reminderTargetSchema.safeParse({ organization_id: item.organization_id, mortgage_file_id: item.mortgage_file_id, reminder_id: item.id, remind_at: item.remind_at });
    return parsed.success ? [{ target: parsed.data, item }] : [];
  });
}

/**
 * The sweep: every reminder the due index holds as due by now is fired (the local poller runs it
 * every second; in AWS a `rate(5 minutes)` schedule runs it for reminders whose own schedule was
 * never created, for example after a crash between the commit and the Scheduler call). The index
 * is eventually consistent: each is fired on condition of what the index showed, and read again only
 * when that condition fails. Returns how many fired, and
 * whether a shard had more than one page due.
 */
export async function sweepDueReminders(now = new Date(), perShard = 100): Promise<{ fired: number; due: number; more: boolean }> {
  const shards = await Promise.all(Array.from({ length: DUE_REMINDER_SHARDS }, (_, shard) => dueInShard(shard, now, perShard)));
  const due = shards.flat();
  let fired = 0;
  // A few at a time: each is one transaction (two round trips when what the index showed was stale).
  for (let start = 0; start < due.length; start += 10) {
    const outcomes = await Promise.all(due.slice(start, start + 10).map(({ target, item }) => fireReminder(target, now.getTime(), item)));
    fired += outcomes.filter((outcome) => outcome === 'fired').length;
  }
  return { fired, due: due.length, more: shards.some((shard) => shard.length >= perShard) };
}
