import * as z from 'zod';
import { validationFailed as invalid } from '../../shared/http/errors';
import { getLogger } from '../../shared/logger';
import { findActiveUser } from '../../shared/organizations/user.repository';
import { REMINDER_TYPE, type ReminderTarget } from '../../shared/reminders/fire-reminder';
import { getReminderScheduler } from '../../shared/reminders/reminder-scheduler';
import { childOperations, defineChild, type ChildScope, sentFields } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { reminderKeys } from '../../shared/storage/keys';
import { dateTimeInput } from '../../shared/validation/date-time';
import { FREE_TEXT_MAX, listValue, recordId, requiredText, text, TITLE_MAX } from '../../shared/validation/fields';
import { mortgageFileEntity } from './mortgage-file.entity';

/** resources.md §9.2: a file's reminders, fired at `remind_at` (shared/reminders). */
const dateTime = z.iso.datetime({ offset: true });
const DEFAULT_CHANNELS = ['in_app'];
const CHANNELS_MAX = 4;

const channels = () =>
  z
    .array(listValue('reminder-channels'), { error: 'must be an array of values of GET /lists/reminder-channels' })
    .min(1, 'must name at least one channel')
    .max(CHANNELS_MAX)
    .refine((values) => new Set(values).size === values.length, 'must not repeat a channel');

/** `metadata` is refused in any form (resources.md §1 "Unknown fields", §9.2): present → 400. */
const refusedMetadata = () =>
  z
    .unknown()
    .refine((value) => value === undefined, 'is not accepted on reminders')
    .optional()
    .describe('Refused: a body with metadata (any value, also null or {}) is answered 400');

const recipient = () => recordId('user');

export const reminderSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    title: z.string(),
    message: z.string().nullable(),
    remind_at: dateTime,
    recipient_user_id: z.uuid(),
    channels: z.array(z.string()),
    status: z.string().describe('scheduled, sent or cancelled (GET /lists/reminder-statuses)'),
    sent_at: dateTime.nullable(),
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Reminder' });

const createReminderSchema = z
  .object({
    title: requiredText(TITLE_MAX),
    message: text(FREE_TEXT_MAX).nullable().optional(),
    remind_at: dateTimeInput(),
    recipient_user_id: recipient().nullable().optional().describe("Default: the key's user; for a key without a user, the file's assignee"),
    channels: channels().nullable().optional().describe('Default ["in_app"]'),
    status: listValue('reminder-statuses')
      .refine((value) => value !== 'sent', 'cannot be set to sent: a reminder is sent by firing')
      .nullable()
      .optional()
      .describe('Read-only on create (a new reminder is scheduled); sent is refused'),
    metadata: refusedMetadata(),
  })
  .meta({ id: 'CreateReminderRequest' });

const updateReminderSchema = z
  .object({
    title: requiredText(TITLE_MAX).nullable().optional(),
    message: text(FREE_TEXT_MAX).nullable().optional(),
    remind_at: dateTimeInput().nullable().optional().describe('Moving a sent or scheduled reminder to a future time re-arms it'),
    recipient_user_id: recipient().nullable().optional(),
    channels: channels().nullable().optional(),
    status: listValue('reminder-statuses')
      .refine((value) => value !== 'sent', 'cannot be set to sent: a reminder is sent by firing')
      .nullable()
      .optional()
      .describe('cancelled cancels; scheduled re-arms a cancelled (or sent) reminder; sent is refused'),
    metadata: refusedMetadata(),
  })
  .meta({ id: 'UpdateReminderRequest' });

export const REMINDER_FIELDS = ['title', 'message', 'remind_at', 'recipient_user_id', 'channels', 'status', 'sent_at', 'created_by'];
const WRITABLE = ['title', 'message', 'remind_at', 'recipient_user_id', 'channels', 'status'];

const sameInstant = (a: unknown, b: unknown) => typeof a === 'string' && typeof b === 'string' && Date.parse(a) === Date.parse(b);

/** The recipient (spec §2 "User ids"): the one named, else the key's user, else the file's assignee; an active user or 400. */
async function resolveRecipient(named: string | null | undefined, { context, parent }: ChildScope): Promise<string> {
  const chosen = named ?? context.userId ?? (parent.assigned_to as string | null) ?? null;
  if (!chosen) throw invalid('recipient_user_id: required when the key has no user and the file has no assignee');
  const user = await findActiveUser(context.organizationId, chosen);
  if (!user) throw invalid('recipient_user_id: not an active user of the organization');
  return user.id;
}

const targetOf = (record: StoredRecord): ReminderTarget => ({
  organization_id: record.organization_id,
  mortgage_file_id: record.mortgage_file_id as string,
  reminder_id: record.id,
  remind_at: record.remind_at as string,
});

/**
 * The external schedule follows the committed reminder: created with it, moved when it is re-armed
 * or moved, deleted when it is cancelled or deleted. A failure here leaves the reminder stored as
 * due; the sweeper (AWS) or the poller (locally) fires it, so the write still succeeds.
 */
async function followSchedule(before: StoredRecord | undefined, after: StoredRecord | undefined): Promise<void> {
  const wasArmed = before?.status === 'scheduled';
  const isArmed = after?.status === 'scheduled';
  const reminderId = (after ?? before)!.id;
  try {
    if (isArmed && (!wasArmed || before!.remind_at !== after!.remind_at)) await getReminderScheduler().arm(targetOf(after!), before ? 'moved' : 'created');
    else if (wasArmed && !isArmed) await getReminderScheduler().disarm({ reminder_id: reminderId });
  } catch (error) {
    getLogger().warn('reminder schedule not updated; the sweeper fires it when due', { reminder_id: reminderId, errorName: (error as Error)?.name });
  }
}

export const reminderChild = defineChild({
  type: REMINDER_TYPE,
  label: 'Reminder',
  entity: 'reminder',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'reminders',
  itemParam: 'reminderId',
  names: { singular: 'reminder', plural: 'reminders' },
  schemas: {
    create: createReminderSchema,
    update: updateReminderSchema,
    record: reminderSchema,
    list: z.object({ data: z.array(reminderSchema), count: z.number().int() }).meta({ id: 'ReminderList' }),
  },
  fields: REMINDER_FIELDS,
  filters: { status: listValue('reminder-statuses') },
  indexes: (record) => reminderKeys.dueIndexes({ id: record.id, status: record.status, remind_at: record.remind_at }),
  async build(input, scope) {
    return {
      title: input.title,
      message: input.message === '' || input.message === undefined ? null : input.message,
      remind_at: input.remind_at,
      recipient_user_id: await resolveRecipient(input.recipient_user_id as string | null | undefined, scope),
      channels: (input.channels as string[] | null | undefined) ?? DEFAULT_CHANNELS,
      status: 'scheduled',
      sent_at: null,
      created_by: scope.context.userId ?? null,
    };
  },
  async change(current, input, scope) {
    const provided = sentFields(input, WRITABLE, ['title', 'remind_at', 'status']);
    const changes: Record<string, unknown> = {};
    if (provided.title !== undefined) changes.title = provided.title;
    if (provided.message !== undefined) changes.message = provided.message === '' ? null : provided.message;
    if (provided.channels !== undefined) changes.channels = provided.channels ?? DEFAULT_CHANNELS;
    if (provided.recipient_user_id !== undefined) changes.recipient_user_id = await resolveRecipient(provided.recipient_user_id as string | null, scope);
    // The same instant written differently is no move (and no re-arming).
    const moved = provided.remind_at !== undefined && !sameInstant(provided.remind_at, current.remind_at);
    if (moved) changes.remind_at = provided.remind_at;

    let status = current.status as string;
    if (provided.status === 'cancelled') status = 'cancelled';
    const rearmedByMove = moved && status !== 'cancelled' && Date.parse(provided.remind_at as string) > Date.now();
    // resources.md §9.2: `status: scheduled` re-arms a cancelled reminder; a sent one is re-armed
    // only by moving `remind_at` to a future time (else it would fire again at once).
    if (provided.status === 'scheduled' && status === 'sent' && !rearmedByMove) {
      throw invalid('status: a sent reminder is re-armed by moving remind_at to a future time');
    }
    const rearm = (provided.status === 'scheduled' && status === 'cancelled') || rearmedByMove;
    if (rearm) {
      status = 'scheduled';
      changes.sent_at = null;
    }
    changes.status = status;
    return changes;
  },
  afterCommit: followSchedule,
});

export const reminderOperations = childOperations(reminderChild);
