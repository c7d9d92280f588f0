import * as z from 'zod';
import { ApiError, badRequest, noUpdatableFields } from '../../shared/http/errors';
import { assertPrecondition, versionOf, withVersion } from '../../shared/http/record-version';
import { newId, nowIso } from '../../shared/ids';
import {
  planParentVersionMove,
  planPartCreate,
  planPartUpdate,
  presentParts,
  requireFamily,
  siblingsOf,
  type Family,
  type PartDefinition,
} from '../../shared/resources/child-entity';
import type { StoredRecord } from '../../shared/resources/entity';
import { planCreate, planUpdate } from '../../shared/resources/entity.repository';
import { retryOnVersionConflict, VersionConflict, WRITE_ATTEMPTS, WriteBatch } from '../../shared/resources/write-batch';
import { recordId } from '../../shared/validation/fields';
import { getLogger } from '../../shared/logger';
import type { WriteContext } from '../../shared/write-context';
import { customerFileLinkDelete } from '../customers/customer-file-links';
import { borrowerPart, createBorrowerSchema, MAX_BORROWERS, knowCustomers, RESOLVED_CUSTOMER, resolveBorrowerCustomer } from './borrower.part';
import { bankAccountPart, incomePart, obligationPart } from './file-records.part';
import { createMortgageFileFields, mortgageFileEntity, mortgageFileListItemSchema, updateMortgageFileSchema } from './mortgage-file.entity';
import { activeDocumentTemplates, activeMilestoneTemplates, fileTemplates, planRequirements, REQUIREMENT_TYPE, requirementPart } from './requirement.part';
import { planOwnMilestoneRows } from './milestone-rows';
import { fileCreateMarkerDelete, fileCreateMarkerPut, settleFromWrittenBorrowers, type FileCreateMarker } from './file-create-settle';

/** The three record kinds a file body may carry, with their write-failure codes (resources.md §5). */
const RECORD_KINDS = [
  { field: 'incomes', part: incomePart, failure: 'income_write_failed' },
  { field: 'bank_accounts', part: bankAccountPart, failure: 'bank_account_write_failed' },
  { field: 'obligations', part: obligationPart, failure: 'obligation_write_failed' },
] as const;
const NESTED_MAX = 50;
const FILE_NUMBER_ATTEMPTS = 5;
/**
 * Tries of a new file's borrower whose new customer's id_number another request took meanwhile: as
 * many as any write's, since the requests that took it may all be writing that customer at once.
 */
const BORROWER_ATTEMPTS = WRITE_ATTEMPTS;
/** Records of the three kinds one PUT/PATCH may add or change (one transaction). */
export const UPDATE_RECORDS_MAX = 25;

/** A nested record of a new file names its borrower by index (default 0); `null`: none (a joint bank account, an obligation of the household). */
const withBorrowerIndex = (schema: z.ZodType) =>
  (schema as z.ZodObject)
    .extend({
      borrower_index: z.number({ error: 'must be a number' }).int('must be an integer').min(0).max(MAX_BORROWERS - 1).nullable().optional(),
    })
    // The fields its create needs (checked by the part's own rule), but the borrower, which is `borrower_index`.
    .meta({ required: requiredOnCreate(schema).filter((field) => field !== 'borrower_id') });

/** The fields a record kind's create needs, as its request schema documents them. */
const requiredOnCreate = (schema: z.ZodType) => (z.globalRegistry.get(schema)?.required as string[] | undefined) ?? [];

/** The borrower a nested record of a new file belongs to: `borrower_index`, or none when it (or `borrower_id`) is sent as `null`. */
function borrowerOfNewRecord(input: Body, borrowerIds: string[]): string | null {
  if (input.borrower_index === null || (input.borrower_index === undefined && input.borrower_id === null)) return null;
  return borrowerIds[(input.borrower_index as number | undefined) ?? 0] ?? null;
}
const withRecordId = (schema: z.ZodType, create: z.ZodType) =>
  (schema as z.ZodObject)
    .extend({ id: recordId('record').optional() })
    .meta({ description: `With \`id\`: that record of the file, its fields as sent changed. Without: a new record, which needs ${requiredOnCreate(create).join(', ')}.` });

/** A file's answer (resources.md §5 Read): its fields with the four arrays, each of its records' answer. */
export const mortgageFileSchema = mortgageFileListItemSchema
  .extend({
    borrowers: z.array(borrowerPart.schemas.record).nullable(),
    ...Object.fromEntries(RECORD_KINDS.map(({ field, part }) => [field, z.array(part.schemas.record).nullable()])),
    /** Only on a create whose nested writes partly failed: one code per failed record. */
    child_errors: z.array(z.enum(['borrower_write_failed', 'income_write_failed', 'bank_account_write_failed', 'obligation_write_failed'])).optional(),
  })
  .meta({ id: 'MortgageFile' });

export const createMortgageFileSchema = createMortgageFileFields
  .extend({
    borrowers: z.array(createBorrowerSchema).max(MAX_BORROWERS, `a mortgage file has at most ${MAX_BORROWERS} borrowers`).optional(),
    ...Object.fromEntries(RECORD_KINDS.map(({ field, part }) => [field, z.array(withBorrowerIndex(part.schemas.create)).max(NESTED_MAX).optional()])),
  })
  .meta({ id: 'CreateMortgageFileRequest' });

export const updateMortgageFileWithRecordsSchema = updateMortgageFileSchema
  .extend(Object.fromEntries(RECORD_KINDS.map(({ field, part }) => [field, z.array(withRecordId(part.schemas.update, part.schemas.create)).max(UPDATE_RECORDS_MAX).optional()])))
  .meta({ id: 'UpdateMortgageFileRequest' });

/** A nested record's 400 names where it is in the body (`incomes[1].monthly_amount: ...`). */
async function at<T>(path: string, step: () => Promise<T> | T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) {
      const details = error.options.details;
      throw new ApiError(400, error.error, { ...error.options, details: details ? `${path}.${details}` : path });
    }
    throw error;
  }
}

type Body = Record<string, unknown>;
const arrayOf = (body: Body, field: string) => (Array.isArray(body[field]) ? (body[field] as Body[]) : []);
const nestedFields = new Set(['borrowers', ...RECORD_KINDS.map(({ field }) => field)]);
/** The file's own fields of a body; symbol keys (a status change's notes) are kept, as a client cannot send them. */
const scalarInput = (body: Body): Body => {
  const scalar: Body = Object.fromEntries(Object.entries(body).filter(([field]) => !nestedFields.has(field)));
  for (const key of Object.getOwnPropertySymbols(body)) Object.assign(scalar, { [key]: (body as Record<symbol, unknown>)[key] });
  return scalar;
};

/** The file's answer: the file with its four arrays (`null` for an array not shown). */
export async function presentFile(family: Family, show: Partial<Record<'borrowers' | 'incomes' | 'bank_accounts' | 'obligations', boolean>>): Promise<StoredRecord> {
  const arrays: Record<string, unknown> = {
    borrowers: show.borrowers ? await presentParts(borrowerPart, siblingsOf(family, borrowerPart), family) : null,
  };
  for (const { field, part } of RECORD_KINDS) arrays[field] = show[field] ? await presentParts(part, siblingsOf(family, part), family) : null;
  return withVersion({ ...family.parent, ...arrays }, versionOf(family.parent) ?? 0);
}

const ALL = { borrowers: true, incomes: true, bank_accounts: true, obligations: true };

export async function readFile(organizationId: string, id: string): Promise<StoredRecord> {
  return presentFile(await requireFamily(mortgageFileEntity, organizationId, id), ALL);
}

interface PlannedPart {
  batch: WriteBatch;
  record: StoredRecord;
  failure: string;
  /** The borrower the record belongs to: when its write failed, the record is not written either. */
  borrowerId?: string | null;
  /** A borrower's: its place in the body's `borrowers`. */
  borrowerIndex?: number;
}

/**
 * POST /mortgage-files (resources.md §5 "Create"): everything is validated and planned first (400:
 * nothing saved); then the file with its per-file requirements in one transaction, then each borrower
 * (with its customer and its per-borrower requirements) and each record one by one. A nested write
 * that fails adds its code to `child_errors`; the answer is 201.
 */
export async function createFileWithRecords(context: WriteContext, body: Body): Promise<StoredRecord> {
  // The required-document templates (§9.8), read once, alongside the customers' reads.
  const templates = activeDocumentTemplates(context);
  const borrowerBodies = arrayOf(body, 'borrowers');
  // Customers first: which one each borrower means, and what writing it takes.
  const borrowerBatches = borrowerBodies.map(() => new WriteBatch());
  const customers = await Promise.all(
    borrowerBodies.map((borrower, index) => at(`borrowers[${index}]`, () => resolveBorrowerCustomer(context, borrower, borrowerBatches[index], false))),
  );
  // One person twice: the same customer, or two new customers with one id_number.
  const samePerson = (a: StoredRecord, b: StoredRecord) => a.id === b.id || (typeof a.id_number === 'string' && a.id_number !== '' && a.id_number === b.id_number);
  const twice = customers.findIndex((customer, index) => customers.findIndex((other) => samePerson(other, customer)) !== index);
  if (twice >= 0) throw badRequest('Validation failed', { details: `borrowers[${twice}]: the same customer is already a borrower of this file` });
  for (const { field } of RECORD_KINDS) {
    arrayOf(body, field).forEach((record, index) => {
      const borrowerIndex = record.borrower_index;
      if (typeof borrowerIndex === 'number' && borrowerIndex >= borrowerBodies.length) {
        throw badRequest('Validation failed', { details: `${field}[${index}].borrower_index: there is no borrower ${borrowerIndex} in borrowers` });
      }
    });
  }

  // The main borrower's: the lowest order_index (one without takes the next after the highest so far,
  // as its create does), the first sent among equals (resources.md §6).
  let highest = -1;
  const orders = borrowerBodies.map((borrower) => {
    const order = typeof borrower.order_index === 'number' ? borrower.order_index : highest + 1;
    highest = Math.max(highest, order);
    return order;
  });
  const mainCustomer = customers.map((customer, index) => ({ customer, order: orders[index] })).sort((a, b) => a.order - b.order)[0]?.customer;
  const fileId = newId();
  const named = typeof body.customer_id === 'string' && body.customer_id !== '' ? body.customer_id.toLowerCase() : undefined;
  // Omitted: the main borrower's customer, which may be written only with its borrower. A borrower's
  // customer is held by its borrower's write alone (two holds of one customer would be one too many).
  const fields = !named || customers.some((customer) => customer.id === named) ? { fields: { customer_id: named ?? mainCustomer?.id ?? null } } : {};
  const fileInput = fields.fields && named ? { ...scalarInput(body), customer_id: undefined } : scalarInput(body);
  // Until the file is settled, a marker says what its create wrote (file-create-settle.ts).
  const createMarker: FileCreateMarker = { created: null, named, at: nowIso() };
  const planParts = async (family: Family, batches: WriteBatch[] | undefined) => {
    const planned: PlannedPart[] = [];
    for (const [index, borrower] of borrowerBodies.entries()) {
      const batch = batches?.[index] ?? new WriteBatch();
      const record = await at(`borrowers[${index}]`, () => planPartCreate(borrowerPart, context, family, { ...borrower, [RESOLVED_CUSTOMER]: customers[index] }, batch));
      planned.push({ batch, record, failure: 'borrower_write_failed', borrowerIndex: index });
    }
    const borrowerIds = planned.map(({ record }) => record.id);
    for (const { field, part, failure } of RECORD_KINDS) {
      for (const [index, input] of arrayOf(body, field).entries()) {
        const { borrower_index: _index, ...values } = input;
        const borrowerId = borrowerOfNewRecord(input, borrowerIds);
        const batch = new WriteBatch();
        const record = await at(`${field}[${index}]`, () => planPartCreate(part, context, family, { ...values, borrower_id: values.borrower_id ?? borrowerId }, batch));
        planned.push({ batch, record, failure, borrowerId: record.borrower_id as string | null });
      }
    }
    return planned;
  };
  // Every nested record is checked before the file is written (its plan is thrown away).
  const draft = withVersion({ id: fileId, organization_id: context.organizationId, created_at: nowIso(), updated_at: nowIso() } as StoredRecord, 1);
  await planParts({ parent: draft, parts: new Map(), fresh: true }, undefined);

  // Awaited before the organization's counter moves: a failed read takes no file number.
  const ownTemplates = fileTemplates(await templates);
  // The milestone templates (§9.7), from the same read: the file's own rows are written with it.
  const activeMilestones = await activeMilestoneTemplates(context);
  // A number the counter hands out may have been given to another file by hand: take the next one.
  let file: StoredRecord;
  let fileRequirements: StoredRecord[];
  for (let attempt = 1; ; attempt++) {
    const fileBatch = new WriteBatch();
    file = await planCreate(mortgageFileEntity, context, fileInput, fileBatch, { id: fileId, ...fields });
    const fileFamily: Family = { parent: file, parts: new Map(), fresh: true };
    fileRequirements = planRequirements(context, fileFamily, ownTemplates, null, fileBatch);
    planOwnMilestoneRows(context, file, activeMilestones, fileBatch);
    if (borrowerBodies.length > 0) fileBatch.add(fileCreateMarkerPut(context.organizationId, fileId, { ...createMarker, created: (file.customer_id ?? null) as string | null }));
    if (context.audit) fileBatch.add(context.audit.entry(file.id, 201));
    try {
      await fileBatch.commit();
      break;
    } catch (error) {
      const autoNumbered = !body.file_number;
      if (!(autoNumbered && error instanceof ApiError && error.status === 409 && attempt < FILE_NUMBER_ATTEMPTS)) throw error;
    }
  }
  const family: Family = { parent: file, parts: new Map([[REQUIREMENT_TYPE, fileRequirements]]), fresh: true };
  knowCustomers(family, customers);
  const planned = await planParts(family, borrowerBatches);

  /**
   * A new customer's `id_number` taken meanwhile by another request's new customer: that customer
   * is the one this borrower means (resources.md §6), as on the borrowers route. The borrower is
   * planned again under its planned id (its records name it), and when it was the main borrower
   * the file's `customer_id` moves to that customer in the same transaction.
   */
  const writeBorrowerAgain = (part: PlannedPart, index: number): Promise<boolean> => {
    // As stored until an attempt below commits: an attempt that fails has changed only memory.
    const planned = customers[index];
    const storedParent = family.parent;
    const plannedAsMain = storedParent.customer_id === planned.id;
    return retryOnVersionConflict(
      async () => {
        const batch = new WriteBatch();
        const customer = await resolveBorrowerCustomer(context, borrowerBodies[index], batch, false);
        family.parts = new Map(family.parts)
          .set(borrowerPart.type, siblingsOf(family, borrowerPart).filter((record) => record.id !== part.record.id))
          .set(REQUIREMENT_TYPE, siblingsOf(family, requirementPart).filter((record) => record.borrower_id !== part.record.id));
        const isMain = plannedAsMain && customer.id !== planned.id;
        if (plannedAsMain) family.parent = { ...storedParent, customer_id: customer.id };
        // The file's create put a row for the planned customer, which is never written: it goes with the move.
        if (isMain) batch.add(customerFileLinkDelete(context.organizationId, planned.id, storedParent.id));
        customers[index] = customer;
        knowCustomers(family, customers);
        part.record = await planPartCreate(borrowerPart, context, family, { ...borrowerBodies[index], [RESOLVED_CUSTOMER]: customer }, batch, true, {
          id: part.record.id,
          parentAttributes: isMain ? { customer_id: customer.id } : undefined,
        });
        if (settlesFile(part)) batch.add(fileCreateMarkerDelete(context.organizationId, fileId, createMarker.at));
        await batch.commit();
        return true;
      },
      { attempts: BORROWER_ATTEMPTS },
    ).catch(() => {
      family.parent = storedParent;
      customers[index] = planned;
      return false;
    });
  };
  const childErrors: string[] = [];
  const failedBorrowers = new Set<string>();
  const written = new Set<string>();
  // The last borrower's write settles the file when every borrower before it was written.
  const lastBorrower = planned.filter((part) => part.borrowerIndex !== undefined).at(-1);
  const settlesFile = (part: PlannedPart) => part === lastBorrower && failedBorrowers.size === 0;
  for (const part of planned) {
    if (part.borrowerId && failedBorrowers.has(part.borrowerId)) {
      childErrors.push(part.failure);
      continue;
    }
    try {
      if (settlesFile(part)) part.batch.add(fileCreateMarkerDelete(context.organizationId, fileId, createMarker.at));
      await part.batch.commit();
      written.add(part.record.id);
    } catch (error) {
      if (error instanceof VersionConflict && part.borrowerIndex !== undefined && (await writeBorrowerAgain(part, part.borrowerIndex))) {
        written.add(part.record.id);
        continue;
      }
      getLogger().warn('nested record of a new mortgage file not written', { code: part.failure, error_name: (error as Error)?.name });
      childErrors.push(part.failure);
      if (part.failure === 'borrower_write_failed') failedBorrowers.add(part.record.id);
    }
  }
  // A borrower's requirements were written with it; the file's own with the file.
  const isWritten = (type: string, record: StoredRecord) =>
    type === REQUIREMENT_TYPE ? record.borrower_id === null || written.has(record.borrower_id as string) : written.has(record.id);
  const saved: Family = {
    parent: withVersion(family.parent, 1 + written.size),
    parts: new Map([...family.parts].map(([type, records]) => [type, records.filter((record) => isWritten(type, record))])),
  };
  const settled = failedBorrowers.size > 0 ? await settleFromWrittenBorrowers(saved, { ...createMarker, created: (saved.parent.customer_id ?? null) as string | null }) : saved;
  knowCustomers(settled, customers);
  const answer = await presentFile(settled, ALL);
  return childErrors.length > 0 ? withVersion({ ...answer, child_errors: childErrors }, versionOf(answer) ?? 0) : answer;
}

/**
 * PUT/PATCH /mortgage-files/{id}: the file's changed fields and the records sent (an item without
 * `id` is added, one with an `id` of this file updates it), all in one transaction; nothing
 * written when nothing changed. The answer has the file's borrowers and, for each record kind, its
 * whole list when it was sent (`null` when not).
 */
export async function updateFileWithRecords(context: WriteContext, id: string, body: Body): Promise<StoredRecord> {
  const scalar = scalarInput(body);
  const sent = RECORD_KINDS.filter(({ field }) => Array.isArray(body[field]));
  const total = sent.reduce((sum, { field }) => sum + arrayOf(body, field).length, 0);
  const hasScalar = Object.values(scalar).some((value) => value !== undefined);

  // Borrowers are always answered (they are not written here); the three kinds only when sent (spec §2).
  const show = { borrowers: true, ...Object.fromEntries(sent.map(({ field }) => [field, true])) };
  return retryOnVersionConflict(async () => {
    const family = await requireFamily(mortgageFileEntity, context.organizationId, id);
    if (!hasScalar && total === 0 && sent.length === 0) throw noUpdatableFields();
    if (total > UPDATE_RECORDS_MAX) throw badRequest('Validation failed', { details: `incomes, bank_accounts, obligations: at most ${UPDATE_RECORDS_MAX} records per request` });
    const current = family.parent;
    assertPrecondition(context.ifMatch, current, versionOf(current) ?? 0);
    const batch = new WriteBatch();
    const partContext: WriteContext = { ...context, ifMatch: undefined };
    const updated = hasScalar ? await planUpdate(mortgageFileEntity, context, current, scalar, batch) : current;
    let partsChanged = false;
    for (const { field, part } of sent) {
      const named = new Set<string>();
      for (const [index, input] of arrayOf(body, field).entries()) {
        const { id: recordId, ...fields } = input;
        await at(`${field}[${index}]`, async () => {
          if (typeof recordId === 'string') {
            // One change per record: two entries for one id would be two writes of one item in the transaction.
            if (named.has(recordId)) throw badRequest('Validation failed', { details: `id: the same record appears twice` });
            named.add(recordId);
            const existing = siblingsOf(family, part as PartDefinition).find((record) => record.id === recordId);
            if (!existing) throw badRequest('Validation failed', { details: `id: not a record of this mortgage file` });
            const after = await planPartUpdate(part, partContext, family, existing, fields, batch, false);
            partsChanged ||= after !== existing;
          } else {
            await planPartCreate(part, partContext, family, fields, batch, false);
            partsChanged = true;
          }
        });
      }
    }
    if (updated === current && !partsChanged) return presentFile(family, show);
    if (updated === current) planParentVersionMove(mortgageFileEntity, family, batch);
    if (context.audit) batch.add(context.audit.entry(id, 200));
    // The answer is made before the commit (its borrowers' customers read now): once the write has
    // committed, nothing left can fail it, and a client's retry would add its new records again.
    const answer = await presentFile({ ...family, parent: updated === current ? family.parent : updated }, show);
    await batch.commit();
    return answer;
  });
}
