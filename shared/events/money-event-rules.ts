import { changed, type EntityEventRules } from './event-rule';

/**
 * Events of a file's payments, charges and milestones (spec §6; resources.md §9.7, §9.10, §9.11,
 * §10), derived from the stored items alone. The `entity` attributes are those of the items
 * `payment.child.ts`, `charge.child.ts` and `milestone-rows.ts` write.
 */
export const PAYMENT_SNAPSHOT_FIELDS = ['id', 'mortgage_file_id', 'charge_id', 'amount', 'paid_at', 'payment_source', 'created_at'] as const;
export const CHARGE_SNAPSHOT_FIELDS = ['id', 'mortgage_file_id', 'description', 'amount', 'paid_amount', 'status', 'due_date', 'created_at'] as const;
export const MILESTONE_SNAPSHOT_FIELDS = ['id', 'mortgage_file_id', 'key', 'label', 'status', 'completed_at'] as const;

/** `payment.created`: every recorded payment (changes and deletes emit nothing). */
export const PAYMENT_EVENT_RULES: EntityEventRules = {
  entity: 'payment',
  object: 'payment',
  snapshotFields: PAYMENT_SNAPSHOT_FIELDS,
  rules: [{ type: 'payment.created', when: (change) => change.kind === 'created' }],
};

/** `charge.paid`: a charge's status changed to `paid` (by a payment, an amount change or a reinstatement). */
export const CHARGE_EVENT_RULES: EntityEventRules = {
  entity: 'charge',
  object: 'charge',
  snapshotFields: CHARGE_SNAPSHOT_FIELDS,
  rules: [{ type: 'charge.paid', when: (change) => changed(change, 'status') && change.after?.status === 'paid' }],
};

/**
 * `milestone.completed`: a file's milestone row became `completed` — an update of its status, or the
 * first progress of a carried-over milestone recorded as completed. `data.id` and the snapshot's
 * `id` are the template's `milestone_id`.
 */
export const MILESTONE_EVENT_RULES: EntityEventRules = {
  entity: 'milestone',
  object: 'milestone',
  snapshotFields: MILESTONE_SNAPSHOT_FIELDS,
  objectId: (item) => item.milestone_id,
  // A carried-over milestone was listed pending, not completed, until its first progress row.
  shownBeforeCreated: (after) => ({ ...after, status: 'pending', completed_at: null }),
  rules: [
    {
      type: 'milestone.completed',
      when: (change) => change.after?.status === 'completed' && (change.kind === 'created' || changed(change, 'status')),
    },
  ],
};
