import { recordNotFound } from '../../shared/http/errors';
import { assertPrecondition, preconditionFailed, versionCondition, versionOf } from '../../shared/http/record-version';
import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys, keys } from '../../shared/storage/keys';
import { nowIso } from '../../shared/ids';
import { completeCommittedDelete } from '../../shared/resources/entity.repository';
import { TransactionConditionFailed, transactWrite, type TransactItem } from '../../shared/storage/transactions';
import type { WriteContext } from '../../shared/write-context';
import { retryOnVersionConflict, VersionConflict, WriteBatch } from '../../shared/resources/write-batch';
import { tasksUnlinkedOnDelete } from '../tasks/task.entity';
import { counterUpdate } from './create-lead';
import { changedContactMarkers } from './lead-contact-markers';
import { getLead, leadToItem, statusCounter, TOTAL_COUNTER } from './lead.repository';

/** The storage type of a lead: its partition is `entityKeys.record(LEAD_TYPE, ...)` (keys.lead). */
export const LEAD_TYPE = 'LEAD';

/** Its tasks stay, with lead_id null (resources.md §8), cleared in the delete's transaction. */
const tasksUnlinked = tasksUnlinkedOnDelete('lead_id');

/** DELETE /leads/{id}: permanent; the lead, its counters and its tasks' links, then its history rows go. */
export async function deleteLead(context: WriteContext, leadId: string): Promise<void> {
  await retryOnVersionConflict(() => deleteLeadAsRead(context, leadId), { what: 'The lead' });
}

async function deleteLeadAsRead(context: WriteContext, leadId: string): Promise<void> {
  const lead = await getLead(context.organizationId, leadId);
  if (!lead) throw recordNotFound('Lead');
  const seenVersion = versionOf(lead) ?? 0;
  assertPrecondition(context.ifMatch, lead, seenVersion);
  // The counters move by the status read: the delete holds only while the lead is that version.
  const unchangedSinceRead = versionCondition(seenVersion);
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: getTableName(),
        Key: keys.lead(context.organizationId, leadId),
        ConditionExpression: unchangedSinceRead.expression,
        ExpressionAttributeNames: unchangedSinceRead.names,
        ...(Object.keys(unchangedSinceRead.values).length > 0 ? { ExpressionAttributeValues: unchangedSinceRead.values } : {}),
      },
    },
    counterUpdate(context.organizationId, { [TOTAL_COUNTER]: -1, [statusCounter(lead.status)]: -1 }),
    ...changedContactMarkers(context.organizationId, lead),
  ];
  const tasks = new WriteBatch();
  const moreTasks = await tasksUnlinked.plan(lead, context, tasks);
  items.push(...tasks.items);
  // Its history rows (and tasks beyond the transaction) follow it: marked, so a stop in between is finished by the sweep;
  // the marker, with the lead and the exact time, is what emits lead.deleted.
  items.push({ Put: { TableName: getTableName(), Item: entityKeys.deletionMarker(LEAD_TYPE, context.organizationId, leadId, nowIso(), leadToItem(lead, { version: seenVersion })) } });
  if (context.audit) items.push(context.audit.entry(leadId, 200));
  try {
    await transactWrite(items);
  } catch (error) {
    // Changed or deleted by a concurrent request since it was read (the lead, first, or one of its tasks).
    if (error instanceof TransactionConditionFailed) {
      if (context.ifMatch && error.failedIndexes.includes(0)) throw preconditionFailed();
      throw new VersionConflict();
    }
    throw error;
  }
  await completeCommittedDelete(LEAD_TYPE, context.organizationId, leadId, { rows: true, followUp: moreTasks ? () => tasksUnlinked.rest(context.organizationId, leadId) : undefined });
}
