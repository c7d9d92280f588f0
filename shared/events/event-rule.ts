import { isDeepStrictEqual } from 'node:util';
import type { EventObject, EventType } from './event-catalog';
import type { Item, StreamChange } from './stream-change';

/** What a rule sees: the item before and after the write, both complete (internal attributes too). */
export type ItemChange = Pick<StreamChange, 'kind' | 'before' | 'after'>;

export interface EventRule {
  type: EventType;
  /** Whether this change emits the event. Pure: reads nothing but the two images. */
  when(change: ItemChange): boolean;
}

/**
 * The event rules of one stored entity. A new resource adds one of these to EVENT_RULES and its
 * write paths emit events without knowing about them.
 */
export interface EntityEventRules {
  /** The `entity` attribute of the items these rules read. */
  entity: string;
  /** `data.object` of the events, and the key of the snapshot inside `data` (spec §6). */
  object: EventObject;
  /** The only fields a snapshot shows: never id numbers, incomes or documents (spec §6). */
  snapshotFields: readonly string[];
  /**
   * The object's id (`data.id`, and the snapshot's `id`) when it is not the item's own `id`: a file's
   * milestone row is the milestone, named by its template's `milestone_id` (resources.md §10).
   */
  objectId?(item: Item): unknown;
  /**
   * For an item whose creation is not the object's (a carried-over milestone's first progress row:
   * the milestone was listed before, pending): the object as it was shown before, so the event's
   * `data.changes` names what changed. Without it a created item's events have empty `changes`.
   */
  shownBeforeCreated?(after: Item): Item;
  rules: EventRule[];
}

const normalized = (value: unknown) => (value === undefined ? null : value);

export function sameValue(a: unknown, b: unknown): boolean {
  return isDeepStrictEqual(normalized(a), normalized(b));
}

/** True for an update that changed `field`. */
export function changed(change: ItemChange, field: string): boolean {
  return change.kind === 'updated' && !sameValue(change.before?.[field], change.after?.[field]);
}

export function snapshotOf(item: Item, fields: readonly string[]): Record<string, unknown> {
  const snapshot: Record<string, unknown> = {};
  for (const field of fields) snapshot[field] = normalized(item[field]);
  return snapshot;
}
