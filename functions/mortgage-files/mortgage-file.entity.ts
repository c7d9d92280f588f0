import * as z from 'zod';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { badRequest, conflict } from '../../shared/http/errors';
import { newId, nowIso } from '../../shared/ids';
import { findStatus, getOrganization, takeNextFileNumber, type Organization } from '../../shared/organizations/organization.repository';
import { findActiveUser } from '../../shared/organizations/user.repository';
import { defineEntity, type StoredRecord } from '../../shared/resources/entity';
import { getRecord, holdRecord, requireRecord } from '../../shared/resources/entity.repository';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys, keys, type ItemKey } from '../../shared/storage/keys';
import type { TransactItem } from '../../shared/storage/transactions';
import type { WriteBatch } from '../../shared/resources/write-batch';
import { amountSchema } from '../../shared/validation/bounded';
import { calendarDate, emptyToNull, FREE_TEXT_MAX, listValue, recordId, text, TITLE_MAX } from '../../shared/validation/fields';
import type { WriteContext } from '../../shared/write-context';
import { customerEntity } from '../customers/customer.entity';
import { borrowerCustomers, customerFileLinkDelete, customerFileLinkPut, customersNamed } from '../customers/customer-file-links';
import { FILE_SEARCH_FIELDS } from './borrower-names';
import { MORTGAGE_FILE_TYPE, statusNotePuts, timelinePut } from './file-rows';

export { MORTGAGE_FILE_TYPE } from './file-rows';

/** Statuses a file can never be created in (spec §2 Mortgage file). */
const REJECTED_CREATE_STATUSES = new Set(['draft', 'new']);
export const FILE_NUMBER_START = 1000;

/** Scalar fields a client writes on a file (resources.md §5). */
const fileFields = z.object({
  file_number: text(30).min(1, 'must not be empty'),
  status: text(64).min(1, 'must not be empty'),
  assigned_to: z.union([z.literal(''), recordId('user')]).nullable(),
  customer_id: z.union([z.literal(''), recordId('customer')]).nullable(),
  source_lead_id: z.union([z.literal(''), recordId('lead')]).nullable(),
  mortgage_type: z.union([z.literal(''), listValue('mortgage-types')]).nullable(),
  mortgage_purpose: z.union([z.literal(''), listValue('mortgage-purposes')]).nullable(),
  property_value: amountSchema().nullable(),
  requested_amount: amountSchema().nullable(),
  equity_amount: amountSchema().nullable(),
  property_city: text(TITLE_MAX).nullable(),
  property_address: text(TITLE_MAX).nullable(),
  bank_code: z.union([z.literal(''), listValue('banks')]).nullable(),
  expected_signing_date: z.union([z.literal(''), calendarDate()]).nullable(),
  notes: text(FREE_TEXT_MAX).nullable(),
});
type FileFields = z.infer<typeof fileFields>;
export const FILE_FIELDS = Object.keys(fileFields.shape) as Array<keyof FileFields>;

/** The file's own fields on create; the nested arrays are added by the create operation (routes.ts). */
export const createMortgageFileFields = fileFields.partial().extend({
  // Omitted, null or empty: the organization's next number and default status.
  file_number: z.union([z.literal(''), text(30)]).nullable().optional(),
  status: z.union([z.literal(''), text(64)]).nullable().optional(),
});
export const updateMortgageFileSchema = fileFields.partial().meta({ id: 'UpdateMortgageFileRequest' });
export const changeMortgageFileStatusSchema = z
  .object({ status: text(64).min(1, 'must not be empty'), notes: text(FREE_TEXT_MAX).nullable().optional() })
  .meta({ id: 'ChangeMortgageFileStatusRequest' });

const dateTime = z.iso.datetime({ offset: true });
/** A list item: the file's fields without its nested arrays. */
export const mortgageFileListItemSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    file_number: z.string(),
    status: z.string(),
    status_changed_at: dateTime.nullable(),
    status_comment: z.string().nullable(),
    assigned_to: z.uuid().nullable(),
    customer_id: z.uuid().nullable(),
    source_lead_id: z.uuid().nullable(),
    mortgage_type: z.string().nullable(),
    mortgage_purpose: z.string().nullable(),
    property_value: z.number().nullable(),
    requested_amount: z.number().nullable(),
    equity_amount: z.number().nullable(),
    property_city: z.string().nullable(),
    property_address: z.string().nullable(),
    bank_code: z.string().nullable(),
    expected_signing_date: z.string().nullable(),
    notes: z.string().nullable(),
    custom_fields: z.record(z.string(), z.unknown()).nullable(),
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'MortgageFileListItem' });

export const statusHistoryRowSchema = z
  .object({
    id: z.uuid(),
    mortgage_file_id: z.uuid(),
    from_status: z.string(),
    to_status: z.string(),
    notes: z.string().nullable(),
    changed_by: z.uuid().nullable(),
    changed_at: dateTime,
  })
  .meta({ id: 'MortgageFileStatusHistoryRow' });

const invalid = (details: string, code?: string) => badRequest('Validation failed', { details, ...(code ? { code } : {}) });

function checkedStatus(organization: Organization | undefined, status: string): void {
  if (!organization || !findStatus(organization.file_statuses, status)) {
    throw badRequest('Invalid status', { code: '23514', details: `Status "${status}" is not defined by the organization` });
  }
}

/** The file's customer, held by the file's write: a customer delete racing it is a 409, never a file naming a deleted customer. */
function holdCustomer(organizationId: string, customerId: string, batch: WriteBatch): void {
  holdRecord(customerEntity, organizationId, customerId, batch, () => invalid('customer_id: not a customer of the organization'));
}

/** Whether the organization has this lead (its key only: the file's bundle carries no lead code). */
async function leadExists(organizationId: string, leadId: string): Promise<boolean> {
  const result = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.lead(organizationId, leadId), ConsistentRead: true, ProjectionExpression: 'pk' }));
  return result.Item !== undefined;
}

/** References in the body must be the organization's (spec §7: 400 naming the field). */
async function checkReferences(organizationId: string, values: Record<string, unknown>): Promise<void> {
  const failures = await Promise.all([
    typeof values.assigned_to === 'string' && findActiveUser(organizationId, values.assigned_to).then((user) => !user && 'assigned_to: not an active user of the organization'),
    typeof values.customer_id === 'string' && getRecord(customerEntity, organizationId, values.customer_id).then((customer) => !customer && 'customer_id: not a customer of the organization'),
    typeof values.source_lead_id === 'string' && leadExists(organizationId, values.source_lead_id).then((exists) => !exists && 'source_lead_id: not a lead of the organization'),
  ]);
  const failure = failures.find((message) => typeof message === 'string') as string | undefined;
  if (failure) throw invalid(failure);
}

export const STATUS_HISTORY_ROW = 'STATUS';

/** The history row of a status change, in the file's own partition (deleted with it). */
export function statusHistoryPut(context: WriteContext, fileId: string, fromStatus: string, toStatus: string, notes: string | null, at: string): TransactItem {
  const rowId = newId();
  return {
    Put: {
      TableName: getTableName(),
      Item: {
        ...entityKeys.row(MORTGAGE_FILE_TYPE, context.organizationId, fileId, STATUS_HISTORY_ROW, at, rowId),
        entity: 'mortgage_file_status_history',
        organization_id: context.organizationId,
        id: rowId,
        mortgage_file_id: fileId,
        from_status: fromStatus,
        to_status: toStatus,
        notes,
        changed_by: context.userId,
        changed_at: at,
      },
    },
  };
}


/**
 * A file's key holds its organization; the operator's commands name a file by its id alone
 * (`mortgage-admin document add --file`). This pointer item, written in the file's create
 * transaction and deleted in its delete transaction, says which organization a file id belongs to:
 * one GetItem, no Scan.
 */
export const fileIdPointerKey = (fileId: string): ItemKey => ({ pk: `${MORTGAGE_FILE_TYPE}ID#${fileId}`, sk: `${MORTGAGE_FILE_TYPE}ID` });

/** The organization of the file with this id (undefined: no such file). */
export async function findFileOrganization(fileId: string): Promise<string | undefined> {
  const result = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: fileIdPointerKey(fileId), ConsistentRead: true }));
  return typeof result.Item?.organization_id === 'string' ? result.Item.organization_id : undefined;
}

/** Input key of a status change's notes (PATCH /status): not a field of the file. */
export const STATUS_NOTES = Symbol('status notes');

export const mortgageFileEntity = defineEntity({
  type: MORTGAGE_FILE_TYPE,
  label: 'Mortgage file',
  path: '/mortgage-files',
  names: { singular: 'mortgageFile', plural: 'mortgageFiles' },
  // Its children, timeline and status history are rows of its partition.
  keepsRows: true,
  schemas: {
    create: createMortgageFileFields,
    update: updateMortgageFileSchema,
    record: mortgageFileListItemSchema,
    list: z.object({ data: z.array(mortgageFileListItemSchema), count: z.number().int() }).meta({ id: 'MortgageFileList' }),
    filters: {
      customer_id: recordId('customer'),
      status: text(64),
      assigned_to: recordId('user'),
      source_lead_id: recordId('lead'),
      mortgage_type: listValue('mortgage-types'),
    },
  },
  // `borrower_names` and `borrower_customer_ids` are kept on the file by every borrower write.
  searchFields: [...FILE_SEARCH_FIELDS],
  internalFields: ['borrower_names', 'borrower_customer_ids'],
  multiValueFilters: ['customer_id'],
  filterValues: (values) => ({
    customer_id: [...new Set([values.customer_id, ...((values.borrower_customer_ids as string[] | null) ?? [])].filter((id): id is string => typeof id === 'string'))],
  }),
  unique: [
    {
      field: 'file_number',
      conflict: () => conflict('Duplicate file_number', { code: '23505', details: 'Another file of the organization has this file_number' }),
    },
  ],
  async build(input, context, checks) {
    const values: Record<string, unknown> = {};
    // Omitted, null and empty (after trimming) are all no value.
    for (const field of FILE_FIELDS) values[field] = emptyToNull(input[field] ?? null);
    const givenStatus = values.status as string | null;
    if (givenStatus && REJECTED_CREATE_STATUSES.has(givenStatus)) throw invalid(`status: a file cannot be created in status "${givenStatus}"`);
    // Everything is checked before the organization's counter moves: a refused create takes no number.
    const [, organization] = await Promise.all([
      checkReferences(context.organizationId, values),
      givenStatus || values.file_number ? getOrganization(context.organizationId) : undefined,
    ]);
    if (givenStatus) checkedStatus(organization, givenStatus);
    if (typeof values.customer_id === 'string') holdCustomer(context.organizationId, values.customer_id, checks);
    const numbered = values.file_number ? organization : await takeNextFileNumber(context.organizationId);
    const status = givenStatus ?? numbered?.file_statuses.find((item) => item.is_default && item.is_active)?.value ?? 'setup';
    if (REJECTED_CREATE_STATUSES.has(status)) throw invalid(`status: a file cannot be created in status "${status}"`);
    checkedStatus(numbered, status);
    return {
      ...values,
      status,
      file_number: values.file_number ?? String(FILE_NUMBER_START + (numbered as Organization).file_sequence),
      status_changed_at: null,
      status_comment: null,
      custom_fields: {},
      created_by: context.userId,
    };
  },
  async change(current: StoredRecord, input, context, checks) {
    const provided = Object.fromEntries(FILE_FIELDS.flatMap((field) => (input[field] === undefined ? [] : [[field, emptyToNull(input[field])]])));
    if (provided.file_number === null) throw invalid('file_number: cannot be cleared');
    if (provided.status === null) throw invalid('status: cannot be cleared');
    const changed = Object.fromEntries(Object.entries(provided).filter(([field, value]) => current[field] !== value));
    // Every reference sent is checked, changed or not (resources.md §1: a deleted or inactive one is a 400).
    await checkReferences(context.organizationId, provided);
    if (typeof changed.customer_id === 'string') holdCustomer(context.organizationId, changed.customer_id, checks);
    if (typeof changed.status === 'string') {
      checkedStatus(await getOrganization(context.organizationId), changed.status);
      const statusNotes = (input as { [STATUS_NOTES]?: string | null })[STATUS_NOTES] ?? null;
      return { ...provided, status_changed_at: nowIso(), status_comment: statusNotes };
    }
    return provided;
  },
  createItems(record, context) {
    return [
      // The customer's row naming this file (customer-file-links.ts): its delete guard reads it by key.
      ...(typeof record.customer_id === 'string' ? [customerFileLinkPut(context.organizationId, record.customer_id, record.id)] : []),
      timelinePut(context.organizationId, record.id, 'file_created', { file_number: record.file_number as string }, context.userId, record.created_at),
      {
        Put: {
          TableName: getTableName(),
          Item: { ...fileIdPointerKey(record.id), entity: 'mortgage_file_pointer', organization_id: context.organizationId, mortgage_file_id: record.id },
        },
      },
    ];
  },
  /** Its id pointer and its rows in its customers' partitions go with it. */
  deleteItems(record) {
    return [
      { Delete: { TableName: getTableName(), Key: fileIdPointerKey(record.id) } },
      ...[...customersNamed(record)].map((customerId) => customerFileLinkDelete(record.organization_id, customerId, record.id)),
    ];
  },
  /** A status change: its history row, its note and its timeline row; a new assignee: its timeline row (resources.md §5, §9.6). */
  changeItems(before, after, input, context) {
    const items: TransactItem[] = [];
    const at = after.updated_at;
    if (before.status !== after.status) {
      // The history row, the note and the timeline row carry the change's own time: status_changed_at.
      const changedAt = typeof after.status_changed_at === 'string' ? after.status_changed_at : at;
      const notes = (input as { [STATUS_NOTES]?: string | null })[STATUS_NOTES] ?? null;
      items.push(statusHistoryPut(context, after.id, before.status as string, after.status as string, notes, changedAt));
      if (notes) items.push(...statusNotePuts(context.organizationId, after.id, context.userId, notes, changedAt));
      items.push(timelinePut(context.organizationId, after.id, 'status_changed', { from_status: before.status as string, to_status: after.status as string }, context.userId, changedAt));
    }
    if ((before.customer_id ?? null) !== (after.customer_id ?? null)) {
      if (typeof after.customer_id === 'string') items.push(customerFileLinkPut(context.organizationId, after.customer_id, after.id));
      const previous = before.customer_id;
      if (typeof previous === 'string' && !borrowerCustomers(before).includes(previous)) items.push(customerFileLinkDelete(context.organizationId, previous, after.id));
    }
    if ((before.assigned_to ?? null) !== (after.assigned_to ?? null)) {
      const change = { from_user_id: (before.assigned_to as string | null) ?? null, to_user_id: (after.assigned_to as string | null) ?? null };
      items.push(timelinePut(context.organizationId, after.id, 'assigned', change, context.userId, at));
    }
    return items;
  },
});

/** The file a `/mortgage-files/{id}/...` path names (an operation's `requirePath`: its 404 comes before the body and query). */
export const requireFileOfPath = ({ params, organizationId }: { params: Record<string, string>; organizationId: string }) =>
  requireRecord(mortgageFileEntity, organizationId, params.id);
