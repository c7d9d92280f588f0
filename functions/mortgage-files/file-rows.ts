import { newId, nowIso } from '../../shared/ids';
import type { SystemListValue } from '../../shared/lists/system-lists';
import { childRowKey } from '../../shared/resources/child-collection';
import { getTableName } from '../../shared/storage/dynamo-client';
import type { TransactItem } from '../../shared/storage/transactions';

/**
 * Rows other writes add to a file's partition in their own transaction: timeline rows (resources.md
 * §9.6) and status-comment notes (§9.1). Their key and item layout is the one of the file's
 * children (`timeline.ts`, `note.child.ts` declare the routes); kept here, free of the file's
 * entity, so the entity's own rules can write them.
 */
export const MORTGAGE_FILE_TYPE = 'MORTGAGE_FILE';
export const TIMELINE_TYPE = 'TIMELINE';
export const NOTE_TYPE = 'NOTE';

export type TimelineEventType = SystemListValue<'timeline-event-types'>;

/** The metadata keys of each row type (resources.md §9.6): a row carries these and nothing else. */
export interface TimelineMetadata {
  file_created: { file_number: string };
  status_changed: { from_status: string; to_status: string };
  assigned: { from_user_id: string | null; to_user_id: string | null };
  borrower_added: { borrower_id: string };
  note_added: { note_id: string; note_type: string };
  task_created: { task_id: string };
  task_completed: { task_id: string };
  reminder_sent: { reminder_id: string };
  document_status_changed: { document_status_id: string; from_status: string | null; to_status: string };
  charge_created: { charge_id: string; amount: number };
  payment_recorded: { payment_id: string; charge_id: string | null; amount: number };
  charge_paid: { charge_id: string };
  milestone_completed: { milestone_id: string };
}

export const TIMELINE_FIELDS = ['event_type', 'occurred_at', 'actor_user_id', 'metadata'];

/**
 * The row of one timeline event, to be written in the transaction of the write it records.
 * `actor` is the key's user, or `null` for the service's own actions (a reminder firing).
 */
export function timelinePut<Type extends TimelineEventType>(
  organizationId: string,
  fileId: string,
  eventType: Type,
  metadata: TimelineMetadata[Type],
  actor: string | null,
  at: string = nowIso(),
): TransactItem {
  const id = newId();
  return {
    Put: {
      TableName: getTableName(),
      Item: {
        ...childRowKey(MORTGAGE_FILE_TYPE, organizationId, fileId, TIMELINE_TYPE, id),
        entity: 'timeline_event',
        id,
        organization_id: organizationId,
        mortgage_file_id: fileId,
        event_type: eventType,
        occurred_at: at,
        actor_user_id: actor,
        metadata,
        created_at: at,
        updated_at: at,
        version: 1,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export const NOTE_FIELDS = ['content', 'note_type', 'is_locked', 'is_pinned', 'is_completed', 'created_by', 'updated_by', 'completed_by', 'completed_at'];

/**
 * The note a status change with notes leaves on the file (spec §3, resources.md §9.1:
 * `{note_type: "status_comment", content: notes}` by the key's user) with its `note_added` row.
 */
export function statusNotePuts(organizationId: string, fileId: string, userId: string | null, content: string, at: string): TransactItem[] {
  const id = newId();
  return [
    {
      Put: {
        TableName: getTableName(),
        Item: {
          ...childRowKey(MORTGAGE_FILE_TYPE, organizationId, fileId, NOTE_TYPE, id),
          entity: 'note',
          id,
          organization_id: organizationId,
          mortgage_file_id: fileId,
          content,
          note_type: 'status_comment',
          is_locked: false,
          is_pinned: false,
          is_completed: false,
          created_by: userId,
          updated_by: null,
          completed_by: null,
          completed_at: null,
          created_at: at,
          updated_at: at,
          version: 1,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    timelinePut(organizationId, fileId, 'note_added', { note_id: id, note_type: 'status_comment' }, userId, at),
  ];
}
