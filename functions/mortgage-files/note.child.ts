import * as z from 'zod';
import { canOverrideLockedNotes } from '../../shared/auth/permissions';
import { badRequest, forbidden, noUpdatableFields } from '../../shared/http/errors';
import { nowIso } from '../../shared/ids';
import { childOperations, defineChild, type ChildScope } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { sameValue } from '../../shared/resources/entity.repository';
import { listValue, requiredText } from '../../shared/validation/fields';
import { NOTE_FIELDS, NOTE_TYPE, timelinePut } from './file-rows';
import { mortgageFileEntity } from './mortgage-file.entity';

/** resources.md §9.1: a file's notes. */
export const NOTE_CONTENT_MAX = 20_000;
const dateTime = z.iso.datetime({ offset: true });
const flag = () => z.boolean({ error: 'must be true or false' });

const writable = {
  content: requiredText(NOTE_CONTENT_MAX),
  note_type: listValue('note-types'),
  is_locked: flag(),
  is_pinned: flag(),
  is_completed: flag(),
};
const DEFAULTS: Record<string, unknown> = { note_type: 'general', is_locked: false, is_pinned: false, is_completed: false };

export const noteSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    content: z.string(),
    note_type: z.string(),
    is_locked: z.boolean(),
    is_pinned: z.boolean(),
    is_completed: z.boolean(),
    created_by: z.uuid().nullable(),
    updated_by: z.uuid().nullable(),
    completed_by: z.uuid().nullable(),
    completed_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Note' });

const createNoteSchema = z.object({ ...writable, note_type: writable.note_type.nullable().optional(), is_locked: flag().nullable().optional(), is_pinned: flag().nullable().optional(), is_completed: flag().nullable().optional() }).meta({ id: 'CreateNoteRequest' });
const updateNoteSchema = z.object(Object.fromEntries(Object.entries(writable).map(([name, schema]) => [name, schema.nullable().optional()]))).meta({ id: 'UpdateNoteRequest' });

const completion = (isCompleted: boolean, userId: string | null) => ({ completed_by: isCompleted ? userId : null, completed_at: isCompleted ? nowIso() : null });

/**
 * The lock (spec §3/§5, resources.md §9.1): while a note is stored locked, only its creator or a key
 * with `admin`, `*` or `mortgage-files:*` may change or delete it.
 */
function authorize(current: StoredRecord, { context }: ChildScope): void {
  if (current.is_locked !== true) return;
  const isCreator = context.userId !== null && context.userId === current.created_by;
  if (isCreator || canOverrideLockedNotes(context.permissions ?? [])) return;
  throw forbidden('Note is locked', { reason: 'note_locked', details: 'Only its creator or an administrator may change or delete a locked note' });
}

export const noteChild = defineChild({
  type: NOTE_TYPE,
  label: 'Note',
  entity: 'note',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'notes',
  itemParam: 'noteId',
  names: { singular: 'note', plural: 'notes' },
  schemas: {
    create: createNoteSchema,
    update: updateNoteSchema,
    record: noteSchema,
    list: z.object({ data: z.array(noteSchema), count: z.number().int() }).meta({ id: 'NoteList' }),
  },
  fields: NOTE_FIELDS,
  filters: { note_type: listValue('note-types') },
  searchFields: ['content'],
  // Pinned first, then newest first.
  order: (a, b) => (a.is_pinned === b.is_pinned ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.is_pinned ? -1 : 1),
  build(input, { context }) {
    const values: Record<string, unknown> = { ...DEFAULTS };
    for (const name of Object.keys(writable)) if (input[name] !== undefined && input[name] !== null) values[name] = input[name];
    return { ...values, ...completion(values.is_completed === true, context.userId), created_by: context.userId, updated_by: null };
  },
  change(current, input, { context }) {
    const provided: Record<string, unknown> = Object.fromEntries(Object.keys(writable).flatMap((name) => (input[name] === undefined ? [] : [[name, input[name]]])));
    if (Object.keys(provided).length === 0) throw noUpdatableFields();
    if (provided.content === null) throw badRequest('Validation failed', { details: 'content: cannot be cleared' });
    // null puts a defaulted field back to its default.
    for (const [name, value] of Object.entries(DEFAULTS)) if (provided[name] === null) provided[name] = value;
    const changed = Object.fromEntries(Object.entries(provided).filter(([name, value]) => !sameValue(current[name], value)));
    if (Object.keys(changed).length === 0) return {};
    const completionChange = 'is_completed' in changed ? completion(changed.is_completed === true, context.userId) : {};
    return { ...changed, ...completionChange, updated_by: context.userId };
  },
  authorize,
  afterCreate(record, { context }, batch) {
    batch.add(timelinePut(context.organizationId, record.mortgage_file_id as string, 'note_added', { note_id: record.id, note_type: record.note_type as string }, context.userId, record.created_at));
  },
});

export const noteOperations = childOperations(noteChild);
