import * as z from 'zod';
import { isAllowed } from '../../shared/auth/permissions';
import { conflict, forbidden, noUpdatableFields, validationFailed as invalid } from '../../shared/http/errors';
import { planChildRewrite, readChildren } from '../../shared/resources/child-collection';
import { definePart, partsOf, planParentVersionMove, planPartDelete, siblingsOf, type Family, type PartDefinition } from '../../shared/resources/child-entity';
import type { StoredRecord } from '../../shared/resources/entity';
import { assertUniqueValuesFree, getRecord, planCreate, planUpdate, sameValue, uniqueValueHolder } from '../../shared/resources/entity.repository';
import { knownRecords } from '../../shared/resources/known-records';
import { VersionConflict, WriteBatch } from '../../shared/resources/write-batch';
import { entityKeys } from '../../shared/storage/keys';
import { TRANSACTION_ITEMS_MAX } from '../../shared/storage/transaction-limit';
import { integerSchema } from '../../shared/validation/bounded';
import { emptyToNull, listValue, recordId } from '../../shared/validation/fields';
import type { WriteContext } from '../../shared/write-context';
import { createCustomerSchema, customerEntity, customerSchema } from '../customers/customer.entity';
import { customerFileLinkDelete, customerFileLinkPut } from '../customers/customer-file-links';
import { normalizeIdNumber, type IdType } from '../customers/id-number';
import { BORROWER_TYPE, borrowerNamesText, CUSTOMER_NAME_FIELDS, customerNames } from './borrower-names';
import { timelinePut } from './file-rows';
import { mortgageFileEntity } from './mortgage-file.entity';
import { activeDocumentTemplates, borrowerTemplates, planRequirements, REQUIREMENT_TYPE } from './requirement.part';
// A cycle (a document status names a borrower), used only inside functions: a static import keeps the bundle free of lazy module wrappers.
import { documentStatusChild } from './document-status.child';

export const MAX_BORROWERS = 10;

/** What a borrower's delete writes besides its records and statuses: the borrower, the file's version, the write log, its customer's row of the file. */
const DELETE_OWN_ITEMS = 4;

/**
 * A borrower whose records do not fit its delete's one transaction (up to 100 incomes, 100 bank
 * accounts and 100 obligations a file): its incomes, bank accounts and obligations are deleted
 * ahead, a transaction's worth at a time, each with the file's version move, so every step leaves
 * a file as coherent as deleting them one by one would. The delete then reads the file again
 * (VersionConflict) and ends with what is left: its requirements, statuses and the borrower.
 * Nothing else reads these rows' absence as a change: files send no update event.
 */
async function deleteRecordsAhead(owned: Array<{ part: PartDefinition; record: StoredRecord }>, statusCount: number, context: WriteContext, family: Family): Promise<void> {
  if (owned.length + statusCount + DELETE_OWN_ITEMS <= TRANSACTION_ITEMS_MAX) return;
  const records = owned.filter(({ part }) => part.type !== REQUIREMENT_TYPE);
  // When even the rest would not fit, nothing is deleted ahead: the delete is refused whole (409).
  if (owned.length - records.length + statusCount + DELETE_OWN_ITEMS > TRANSACTION_ITEMS_MAX) return;
  const ahead = records.slice(0, TRANSACTION_ITEMS_MAX - 1);
  const batch = new WriteBatch();
  for (const { part, record } of ahead) planPartDelete(part, context, family, record, batch, false);
  planParentVersionMove(mortgageFileEntity, family, batch);
  await batch.commit();
  throw new VersionConflict();
}
/** Input key of a customer resolved (and its writes planned) before the borrower is planned: a file created with its borrowers. */
export const RESOLVED_CUSTOMER = Symbol('resolved customer');
/** Customers as this request reads or writes them (created or changed with their borrowers): the answer, made before the commit, shows them so. */
export function knowCustomers(family: Family, customers: StoredRecord[]): void {
  for (const customer of customers) knownRecords(family).rememberRecord(customerEntity, customer);
}

/** The parts a borrower's DELETE removes with it (resources.md §6); documents and others naming it stay. */
const OWNED_BY_BORROWER = new Set(['INCOME', 'BANK_ACCOUNT', 'OBLIGATION', REQUIREMENT_TYPE]);

/** Customer fields a borrower body may carry inline (resources.md §6). */
export const INLINE_CUSTOMER_FIELDS = [
  'id_type',
  'id_number',
  'first_name',
  'last_name',
  'entity_name',
  'nickname',
  'phone',
  'email',
  'birth_date',
  'marital_status',
  'education',
  'residence_type',
  'employment_type',
] as const;

const inlineShape = Object.fromEntries(INLINE_CUSTOMER_FIELDS.map((field) => [field, createCustomerSchema.shape[field]]));
const borrowerOwnFields = {
  relationship: z.union([z.literal(''), listValue('borrower-relationships')]).nullable().optional(),
  order_index: integerSchema(0, 1_000_000).nullable().optional(),
};

export const createBorrowerSchema = z
  .object({ customer_id: recordId('customer').nullable().optional(), ...inlineShape, ...borrowerOwnFields })
  .meta({ id: 'CreateBorrowerRequest' });
export const updateBorrowerSchema = z.object({ ...inlineShape, ...borrowerOwnFields }).meta({ id: 'UpdateBorrowerRequest' });

const dateTime = z.iso.datetime({ offset: true });
const flattenedCustomer = Object.fromEntries(INLINE_CUSTOMER_FIELDS.map((field) => [field, customerSchema.shape[field]]));
export const borrowerSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    customer_id: z.uuid(),
    order_index: z.number().int(),
    is_main: z.boolean(),
    relationship: z.string().nullable(),
    ...flattenedCustomer,
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Borrower' });


/** What a borrower's customer is made of: the inline fields the body sent (null: no value). */
export function inlineCustomerFields(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(INLINE_CUSTOMER_FIELDS.flatMap((field) => (input[field] === undefined || input[field] === null ? [] : [[field, input[field]]])));
}

/** The customer context of a write made through a borrower: no If-Match (it is the borrower's) and no log entry of its own. */
const customerContext = (context: WriteContext): WriteContext => ({
  organizationId: context.organizationId, userId: context.userId, permissions: context.permissions, borrowerFileId: context.borrowerFileId,
});

async function customerByIdNumber(organizationId: string, idType: unknown, idNumber: string): Promise<StoredRecord | undefined> {
  const normalized = normalizeIdNumber(((typeof idType === 'string' && idType) || 'personal_id') as IdType, idNumber);
  if ('error' in normalized) throw invalid(`id_number: ${normalized.error}`);
  const customerId = await uniqueValueHolder(customerEntity, organizationId, 'id_number', normalized.value);
  return customerId ? getRecord(customerEntity, organizationId, customerId) : undefined;
}

/**
 * Inline fields applied to a stored customer: only values that differ are written, and writing
 * them needs `customers:write` as well (resources.md §6, §11); `null` never erases (customer rule).
 */
async function planCustomerChange(context: WriteContext, customer: StoredRecord, inline: Record<string, unknown>, batch: WriteBatch, atVersionRead = true): Promise<StoredRecord> {
  const own = new WriteBatch();
  const updated = Object.keys(inline).length === 0 ? customer : await planUpdate(customerEntity, customerContext(context), customer, inline, own);
  if (updated === customer) {
    // Unchanged, but still the customer read when the borrower is written (the borrower copies its
    // names for the file's search): a rename or delete meanwhile makes this write read again, and a
    // delete or rename racing it reads again too (the delete then answers its 409). A new file's
    // borrowers, written once each after the file, hold it only as existing (a concurrent file of
    // the same customer must not cost them their borrower).
    const key = entityKeys.record(customerEntity.type, context.organizationId, customer.id);
    if (atVersionRead) batch.hold(key, () => new VersionConflict(), Object.fromEntries(CUSTOMER_NAME_FIELDS.map((field) => [field, customer[field] ?? null])));
    else batch.hold(key, () => invalid('customer_id: not a customer of the organization'));
    return customer;
  }
  if (!isAllowed(context.permissions ?? [], 'customers', 'write')) {
    throw forbidden('Forbidden', { details: "Changing a customer's details through a borrower also needs the customers:write permission" });
  }
  // A taken id_number is the customer's 409 now, before a new file's other records are written.
  await assertUniqueValuesFree(customerEntity, context.organizationId, customer, updated);
  batch.addBatch(own);
  return updated;
}

/**
 * Which customer a borrower body means (resources.md §6): `customer_id`; else a customer with the
 * body's `id_number`; else a new customer from the inline fields (a name required).
 */
export async function resolveBorrowerCustomer(context: WriteContext, input: Record<string, unknown>, batch: WriteBatch, atVersionRead = true): Promise<StoredRecord> {
  const inline = inlineCustomerFields(input);
  if (typeof input.customer_id === 'string') {
    const customer = await getRecord(customerEntity, context.organizationId, input.customer_id);
    if (!customer) throw invalid('customer_id: not a customer of the organization');
    return planCustomerChange(context, customer, inline, batch, atVersionRead);
  }
  const idNumber = typeof inline.id_number === 'string' ? inline.id_number.trim() : '';
  if (idNumber) {
    const existing = await customerByIdNumber(context.organizationId, inline.id_type, idNumber);
    if (existing) return planCustomerChange(context, existing, inline, batch, atVersionRead);
  }
  // A new customer. Should another request create one with this id_number first, its guard fails:
  // read again, and that customer is the one meant (resources.md §6), not a 409.
  const own = new WriteBatch();
  const created = await planCreate(customerEntity, customerContext(context), inline, own);
  batch.addBatch(own, idNumber ? () => new VersionConflict() : undefined);
  return created;
}

/** The main borrower: the lowest `order_index`, ties to the earliest created. */
export function mainBorrowerOf(borrowers: StoredRecord[]): StoredRecord | undefined {
  return [...borrowers].sort(byOrder)[0];
}

function byOrder(a: StoredRecord, b: StoredRecord): number {
  const order = (a.order_index as number) - (b.order_index as number);
  if (order !== 0) return order;
  return a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1;
}

export const borrowerPart = definePart({
  type: BORROWER_TYPE,
  label: 'Borrower',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'borrowers',
  itemParam: 'borrowerId',
  names: { singular: 'borrower', plural: 'borrowers' },
  schemas: {
    create: createBorrowerSchema,
    update: updateBorrowerSchema,
    record: borrowerSchema,
    list: z.object({ data: z.array(borrowerSchema), count: z.number().int() }).meta({ id: 'BorrowerList' }),
  },
  // `search_names`: the customer's names, kept on the link for the file's search.
  fields: ['customer_id', 'order_index', 'relationship', 'created_by', 'search_names'],
  order: byOrder,
  maxPerParent: MAX_BORROWERS,
  async build(input, context, family, batch) {
    const siblings = siblingsOf(family, borrowerPart);
    const resolved = (input as { [RESOLVED_CUSTOMER]?: StoredRecord })[RESOLVED_CUSTOMER];
    // The organization's templates are read once per request, alongside the customer's reads.
    const [customer] = await Promise.all([resolved ?? resolveBorrowerCustomer({ ...context, borrowerFileId: family.parent.id }, input, batch), activeDocumentTemplates(context)]);
    knowCustomers(family, [customer]);
    const existing = siblings.find((borrower) => borrower.customer_id === customer.id);
    if (existing) {
      throw conflict('Borrower already exists', { details: 'This customer is already a borrower of the mortgage file', extra: { existing_link_id: existing.id } });
    }
    const highest = siblings.reduce((max, borrower) => Math.max(max, borrower.order_index as number), -1);
    return {
      customer_id: customer.id,
      order_index: typeof input.order_index === 'number' ? input.order_index : highest + 1,
      relationship: emptyToNull(input.relationship ?? null),
      created_by: context.userId,
      search_names: customerNames(customer),
    };
  },
  async change(current, input, context, family, batch) {
    const changes: Record<string, unknown> = {};
    if (input.relationship !== undefined) changes.relationship = emptyToNull(input.relationship);
    if (input.order_index !== undefined) {
      if (input.order_index === null) throw invalid('order_index: cannot be cleared');
      changes.order_index = input.order_index;
    }
    const inline = inlineCustomerFields(input);
    if (Object.keys(inline).length > 0) {
      const customer = await getRecord(customerEntity, context.organizationId, current.customer_id as string);
      if (!customer) throw invalid('customer_id: the borrower\'s customer no longer exists');
      const customerPlan = new WriteBatch();
      const updated = await planCustomerChange({ ...context, borrowerFileId: family.parent.id }, customer, inline, customerPlan);
      knowCustomers(family, [updated]);
      changes.search_names = customerNames(updated);
      // The customer's plan (its change, or the check that it still exists) goes with a write of
      // the borrower; the same values again write nothing at all.
      const borrowerChanges = Object.entries(changes).some(([field, value]) => !sameValue(current[field], value));
      if (updated !== customer || borrowerChanges) batch.addBatch(customerPlan);
    }
    if (Object.keys(changes).length === 0 && Object.keys(inline).length === 0) throw noUpdatableFields();
    return changes;
  },
  async beforeDelete(record, context, family, batch) {
    const borrowers = siblingsOf(family, borrowerPart);
    if (borrowers.length > 1 && mainBorrowerOf(borrowers)?.id === record.id) {
      throw conflict('Main borrower', { details: 'The main borrower cannot be removed while the file has other borrowers' });
    }
    // The borrower's incomes, bank accounts, obligations and requirements go with it (resources.md §6).
    const owned = partsOf(mortgageFileEntity)
      .filter((candidate) => OWNED_BY_BORROWER.has(candidate.type))
      .flatMap((part) => siblingsOf(family, part).filter((candidate) => candidate.borrower_id === record.id).map((ownedRecord) => ({ part, record: ownedRecord })));
    // The file no longer names the customer, unless as its own customer_id.
    if (record.customer_id !== family.parent.customer_id) batch.add(customerFileLinkDelete(context.organizationId, record.customer_id as string, family.parent.id));
    const statuses = await readChildren(documentStatusChild, context.organizationId, family.parent.id);
    await deleteRecordsAhead(owned, statuses.length, context, family);
    const gone = new Set<unknown>([record.id]);
    for (const { part, record: ownedRecord } of owned) {
      planPartDelete(part, context, family, ownedRecord, batch, false);
      gone.add(ownedRecord.id);
    }
    // Its document statuses stay, no longer linked to it or its requirements (§9.8 unlinked_statuses), in the same write.
    for (const status of statuses.filter((row) => gone.has(row.borrower_id) || gone.has(row.requirement_id))) {
      planChildRewrite(documentStatusChild, status, { requirement_id: null, borrower_id: null }, batch, context);
    }
  },
  /** The borrower's own requirements (resources.md §6, §9.8), in its transaction (templates read once per request). */
  async afterCreate(record, context, family, batch) {
    planRequirements(context, family, borrowerTemplates(await activeDocumentTemplates(context)), record.id, batch);
    // The customer's row naming this file (customer-file-links.ts): its delete guard reads it by key.
    batch.add(customerFileLinkPut(context.organizationId, record.customer_id as string, family.parent.id));
    batch.add(timelinePut(context.organizationId, family.parent.id, 'borrower_added', { borrower_id: record.id }, context.userId, record.created_at));
  },
  parentAttributes(family: Family) {
    const borrowers = siblingsOf(family, borrowerPart);
    return {
      borrower_customer_ids: [...new Set(borrowers.map((borrower) => borrower.customer_id as string))],
      borrower_names: borrowerNamesText(borrowers.map((borrower) => borrower.search_names)),
    };
  },
  async present(records, family) {
    const customers = await knownRecords(family).records(customerEntity, family.parent.organization_id, records.map((record) => record.customer_id as string));
    const main = mainBorrowerOf(siblingsOf(family, borrowerPart))?.id;
    return records.map((record) => {
      const customer = customers.get(record.customer_id as string) ?? ({} as StoredRecord);
      const flattened = Object.fromEntries(INLINE_CUSTOMER_FIELDS.map((field) => [field, customer[field] ?? null]));
      return {
        id: record.id,
        organization_id: record.organization_id,
        mortgage_file_id: record.mortgage_file_id,
        customer_id: record.customer_id,
        order_index: record.order_index,
        is_main: record.id === main,
        relationship: record.relationship ?? null,
        ...flattened,
        created_at: record.created_at,
        updated_at: record.updated_at,
      } as unknown as StoredRecord;
    });
  },
  // The answer shows its customer's fields and whether it is the main borrower: a change of the
  // customer (through any file or /customers), or another borrower's order taking or giving up the
  // main place, changes its ETag.
  joined: (answer) => [answer.is_main, ...INLINE_CUSTOMER_FIELDS.map((field) => answer[field])],
});
