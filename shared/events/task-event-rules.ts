import { changed, type EntityEventRules } from './event-rule';

/** The `entity` attribute of a stored task item. */
export const TASK_ENTITY = 'task';

/** resources.md §10: the task snapshot. */
export const TASK_SNAPSHOT_FIELDS = [
  'id',
  'title',
  'status',
  'priority',
  'due_date',
  'assigned_to',
  'mortgage_file_id',
  'lead_id',
  'customer_id',
  'completed_at',
  'created_at',
] as const;

/**
 * Task events (spec §3 Task, §6; resources.md §8): `task.created` on create, `task.completed` only
 * when an update changes the status to `completed` (a task created completed, the same status again,
 * or any other change emit no `task.completed`). Deletes and unlinking emit nothing.
 */
export const TASK_EVENT_RULES: EntityEventRules = {
  entity: TASK_ENTITY,
  object: 'task',
  snapshotFields: TASK_SNAPSHOT_FIELDS,
  rules: [
    { type: 'task.created', when: (change) => change.kind === 'created' },
    { type: 'task.completed', when: (change) => changed(change, 'status') && change.after?.status === 'completed' },
  ],
};
