import * as z from 'zod';
import { conflict, noUpdatableFields, validationFailed as invalid } from '../../shared/http/errors';
import { nowIso } from '../../shared/ids';
import { childOperations, defineChild, type ChildScope } from '../../shared/resources/child-collection';
import { partKey, requireFamily, siblingsOf, type Family, type PartDefinition } from '../../shared/resources/child-entity';
import type { StoredRecord } from '../../shared/resources/entity';
import type { WriteBatch } from '../../shared/resources/write-batch';
import { FREE_TEXT_MAX, KEY_MAX, listValue, recordId, requiredText, text } from '../../shared/validation/fields';
import { borrowerPart } from './borrower.part';
import { timelinePut } from './file-rows';
import { mortgageFileEntity } from './mortgage-file.entity';
import { requirementPart } from './requirement.part';

/**
 * A file's document statuses (resources.md §9.9): what the advisor knows of each document of the
 * file, optionally linked to one of its requirements (§9.8, `required-documents.ts`). `note` is
 * accepted with a status change only and kept in the read-only `notes`, one entry per change.
 * No DELETE (a row no longer needed is `dismissed`).
 */
const dateTime = z.iso.datetime({ offset: true });
export const DOCUMENT_STATUS_TYPE = 'DOCUMENT_STATUS';
export const DEFAULT_DOCUMENT_STATUS = 'missing';
/**
 * The stored `notes` of one row stay under this many bytes of UTF-8 JSON (an item holds at most
 * 400 KB): a status change whose entry would go beyond is refused (409), nothing is written. At
 * 5,000 characters a note, that is at least 30 changes with full-length Hebrew notes, hundreds
 * with short ones.
 */
export const NOTES_MAX_BYTES = 300_000;

export const documentStatusNoteSchema = z
  .object({
    at: dateTime,
    by: z.uuid().nullable(),
    from_status: listValue('document-statuses').nullable(),
    to_status: listValue('document-statuses'),
    note: z.string().nullable(),
  })
  .meta({ id: 'DocumentStatusNote' });

export const documentStatusSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    document_type: z.string(),
    requirement_id: z.uuid().nullable(),
    borrower_id: z.uuid().nullable(),
    status: listValue('document-statuses'),
    notes: z.array(documentStatusNoteSchema),
    created_by: z.uuid().nullable(),
    updated_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'DocumentStatus' });

const writable = {
  document_type: requiredText(KEY_MAX),
  requirement_id: recordId('requirement').nullable().optional(),
  borrower_id: recordId('borrower').nullable().optional(),
  status: listValue('document-statuses').nullable().optional(),
  note: text(FREE_TEXT_MAX).nullable().optional().describe('Write-only: accepted only with a status change (a create counts); appended to notes'),
};
const createSchema = z.object(writable).meta({ id: 'CreateDocumentStatusRequest' });
const updateSchema = z.object({ ...writable, document_type: writable.document_type.nullable().optional() }).meta({ id: 'UpdateDocumentStatusRequest' });

type Note = z.infer<typeof documentStatusNoteSchema>;
const noteOf = (input: Record<string, unknown>): string | null => (typeof input.note === 'string' && input.note !== '' ? input.note : null);

function entry(scope: ChildScope, from: string | null, to: string, note: string | null): Note {
  return { at: nowIso(), by: scope.context.userId, from_status: from as Note['from_status'], to_status: to as Note['to_status'], note };
}

function withEntry(notes: Note[], added: Note): Note[] {
  const next = [...notes, added];
  if (Buffer.byteLength(JSON.stringify(next), 'utf8') > NOTES_MAX_BYTES) {
    throw conflict('Document status history is full', { details: 'This row holds as many status changes as it can; record further changes on a new document status row' });
  }
  return next;
}

/** A referenced part must still exist when the row is written. */
function planStillThere(family: Family, part: PartDefinition, id: string, field: string, batch: WriteBatch): void {
  batch.requireExists(partKey(part, family.parent.organization_id, family.parent.id, id), () => invalid(`${field}: no longer exists`));
}

/**
 * `requirement_id` and `borrower_id` must be this file's (resources.md §1 References), read with the
 * file's family (only when one is given) and held by condition checks in the write's transaction. A
 * status of a borrower's requirement is that borrower's: `borrower_id` follows the requirement and may
 * not name another borrower.
 */
async function checkedReferences(scope: ChildScope, requirementId: string | null, borrowerId: string | null, batch: WriteBatch, borrowerSent: boolean): Promise<{ requirement_id: string | null; borrower_id: string | null }> {
  if (requirementId === null && borrowerId === null) return { requirement_id: null, borrower_id: null };
  const family = await requireFamily(mortgageFileEntity, scope.context.organizationId, scope.parent.id);
  let borrower = borrowerId;
  if (requirementId !== null) {
    const requirement = siblingsOf(family, requirementPart).find((candidate) => candidate.id === requirementId);
    if (!requirement) throw invalid('requirement_id: not a requirement of this mortgage file');
    const owner = (requirement.borrower_id as string | null) ?? null;
    if (owner !== null && borrower !== null && borrower !== owner) {
      if (borrowerSent) throw invalid("borrower_id: the requirement is another borrower's");
      borrower = owner;
    }
    borrower ??= owner;
    planStillThere(family, requirementPart, requirementId, 'requirement_id', batch);
  }
  if (borrower !== null) {
    if (!siblingsOf(family, borrowerPart).some((candidate) => candidate.id === borrower)) throw invalid('borrower_id: not a borrower of this mortgage file');
    planStillThere(family, borrowerPart, borrower, 'borrower_id', batch);
  }
  return { requirement_id: requirementId, borrower_id: borrower };
}

function statusChangedRow(scope: ChildScope, record: StoredRecord, from: string | null, to: string, at: string) {
  return timelinePut(scope.context.organizationId, record.mortgage_file_id as string, 'document_status_changed', { document_status_id: record.id, from_status: from, to_status: to }, scope.context.userId, at);
}

export const documentStatusChild = defineChild({
  type: DOCUMENT_STATUS_TYPE,
  label: 'Document status',
  entity: 'document_status',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'document-statuses',
  itemParam: 'documentStatusId',
  names: { singular: 'documentStatus', plural: 'documentStatuses' },
  schemas: {
    create: createSchema,
    update: updateSchema,
    record: documentStatusSchema,
    list: z.object({ data: z.array(documentStatusSchema), count: z.number().int() }).meta({ id: 'DocumentStatusList' }),
  },
  fields: ['document_type', 'requirement_id', 'borrower_id', 'status', 'notes', 'created_by', 'updated_by'],
  filters: { status: listValue('document-statuses'), document_type: z.string().max(KEY_MAX) },
  methods: ['list', 'create', 'get', 'update'],
  async build(input, scope, batch) {
    const status = (input.status as string | null | undefined) ?? DEFAULT_DOCUMENT_STATUS;
    const note = noteOf(input);
    const references = await checkedReferences(scope, (input.requirement_id as string | null | undefined) ?? null, (input.borrower_id as string | null | undefined) ?? null, batch, input.borrower_id != null);
    // A create is a status change: an entry when the status is not the default, or a note came with it.
    const notes = status !== DEFAULT_DOCUMENT_STATUS || note !== null ? [entry(scope, null, status, note)] : [];
    return { document_type: input.document_type, ...references, status, notes, created_by: scope.context.userId, updated_by: null };
  },
  async change(current, input, scope, batch) {
    // A blank or null `note` is no note: alone it leaves nothing to update.
    const sent = Object.keys(writable).filter((name) => input[name] !== undefined && (name !== 'note' || noteOf(input) !== null));
    if (sent.length === 0) throw noUpdatableFields();
    if (input.document_type === null) throw invalid('document_type: cannot be cleared');
    const status = input.status === undefined ? (current.status as string) : ((input.status as string | null) ?? DEFAULT_DOCUMENT_STATUS);
    const statusChanged = status !== current.status;
    const note = noteOf(input);
    if (note !== null && !statusChanged) throw invalid('note: accepted only together with a change of status');
    const changes: Record<string, unknown> = {};
    if (input.document_type !== undefined && input.document_type !== current.document_type) changes.document_type = input.document_type;
    if (input.requirement_id !== undefined || input.borrower_id !== undefined) {
      const requirementId = input.requirement_id === undefined ? (current.requirement_id as string | null) : (input.requirement_id as string | null);
      const borrowerId = input.borrower_id === undefined ? (current.borrower_id as string | null) : (input.borrower_id as string | null);
      // Unchanged references are not checked again (their checks alone would make a write).
      if (requirementId !== current.requirement_id || borrowerId !== current.borrower_id) {
        const references = await checkedReferences(scope, requirementId, borrowerId, batch, input.borrower_id != null);
        if (references.requirement_id !== current.requirement_id) changes.requirement_id = references.requirement_id;
        if (references.borrower_id !== current.borrower_id) changes.borrower_id = references.borrower_id;
      }
    }
    if (statusChanged) {
      changes.status = status;
      changes.notes = withEntry((current.notes as Note[] | null) ?? [], entry(scope, current.status as string, status, note));
    }
    if (Object.keys(changes).length === 0) return {};
    return { ...changes, updated_by: scope.context.userId };
  },
  afterCreate(record, scope, batch) {
    batch.add(statusChangedRow(scope, record, null, record.status as string, record.created_at));
  },
  afterUpdate(before, after, scope, batch) {
    if (before.status !== after.status) batch.add(statusChangedRow(scope, after, before.status as string, after.status as string, after.updated_at));
  },
});

export const documentStatusOperations = childOperations(documentStatusChild);
