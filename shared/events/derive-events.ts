import type { EventObject, EventType } from './event-catalog';
import { eventIdFor } from './event-ids';
import { sameValue, snapshotOf, type EntityEventRules } from './event-rule';
import { LEAD_EVENT_RULES } from './lead-event-rules';
import { MORTGAGE_FILE_EVENT_RULES } from './mortgage-file-event-rules';
import { CHARGE_EVENT_RULES, MILESTONE_EVENT_RULES, PAYMENT_EVENT_RULES } from './money-event-rules';
import { TASK_EVENT_RULES } from './task-event-rules';
import { deletionOf, type Item, type StreamChange } from './stream-change';

/** The table of event rules, one entry per entity that emits events. */
export const EVENT_RULES: readonly EntityEventRules[] = [
  LEAD_EVENT_RULES,
  MORTGAGE_FILE_EVENT_RULES,
  TASK_EVENT_RULES,
  PAYMENT_EVENT_RULES,
  CHARGE_EVENT_RULES,
  MILESTONE_EVENT_RULES,
];

export type FieldChanges = Record<string, { from: unknown; to: unknown }>;

/** The JSON body receivers get (spec §6 "Body shape"). */
export interface WebhookEventBody {
  id: string;
  type: EventType;
  created_at: string;
  data: {
    object: EventObject;
    id: string;
    changes: FieldChanges;
    [snapshotKey: string]: unknown;
  };
}

export interface DerivedEvent {
  id: string;
  type: EventType;
  organizationId: string;
  /** When the change happened: the item's `updated_at` where it has one, else the record's time. */
  occurredAt: string;
  /** False when `occurredAt` is only the stream's approximate (whole-second) time. */
  occurredAtIsExact: boolean;
  body: WebhookEventBody;
}

const rulesByEntity = new Map(EVENT_RULES.map((rules) => [rules.entity, rules]));

function snapshotChanges(before: Item, after: Item, fields: readonly string[]): FieldChanges {
  const changes: FieldChanges = {};
  for (const field of fields) {
    if (!sameValue(before[field], after[field])) changes[field] = { from: before[field] ?? null, to: after[field] ?? null };
  }
  return changes;
}

function occurrence(change: StreamChange): { at: string; exact: boolean } {
  const updatedAt = change.kind === 'deleted' ? change.deletedAt : change.after?.updated_at;
  if (typeof updatedAt === 'string' && !Number.isNaN(Date.parse(updatedAt))) return { at: new Date(updatedAt).toISOString(), exact: true };
  return { at: change.recordedAt.toISOString(), exact: false };
}

/**
 * Spec §6: the events one stream record gives, derived from its old and new images alone. One
 * change can give several events (a status change and a new assignee in one update); items of
 * entities without rules (history rows, logs, counters, keys) give none.
 */
export function deriveEvents(streamed: StreamChange): DerivedEvent[] {
  // A record's removal gives no event: its delete is told, at its exact time, by the `deleting`
  // marker put in the delete's transaction (a removal's stream time is whole seconds only).
  if (streamed.kind === 'deleted') return [];
  const change = deletionOf(streamed) ?? streamed;
  const item = change.after ?? change.before;
  const entity = item?.entity;
  if (!item || typeof entity !== 'string') return [];
  const rules = rulesByEntity.get(entity);
  const organizationId = item.organization_id;
  const objectId = rules?.objectId ? rules.objectId(item) : item.id;
  if (!rules || typeof organizationId !== 'string' || typeof objectId !== 'string') return [];

  const matching = rules.rules.filter((rule) => rule.when(change));
  if (matching.length === 0) return [];

  // An update's changes; a created item that stands for a record shown before it (a milestone's first progress) changes from that.
  const before = change.kind === 'updated' ? change.before : change.kind === 'created' && change.after ? rules.shownBeforeCreated?.(change.after) : undefined;
  const changes = before ? snapshotChanges(before, change.after ?? {}, rules.snapshotFields) : {};
  const snapshot = snapshotOf(item, rules.snapshotFields);
  if ('id' in snapshot) snapshot.id = objectId;
  const { at, exact } = occurrence(change);
  return matching.map((rule) => {
    const id = eventIdFor(change.recordId, rule.type);
    return {
      id,
      type: rule.type,
      organizationId,
      occurredAt: at,
      occurredAtIsExact: exact,
      body: {
        id,
        type: rule.type,
        created_at: at,
        data: { object: rules.object, id: objectId, changes, [rules.object]: snapshot },
      },
    };
  });
}
