import * as z from 'zod';
import { noUpdatableFields, validationFailed as invalid } from '../../shared/http/errors';
import { definePart, siblingsOf, type Family, type PartDefinition } from '../../shared/resources/child-entity';
import type { StoredRecord } from '../../shared/resources/entity';
import { amountSchema, signedAmountSchema } from '../../shared/validation/bounded';
import { calendarDate, emptyToNull, FREE_TEXT_MAX, listValue, NAME_MAX, recordId, text } from '../../shared/validation/fields';
import { borrowerPart } from './borrower.part';
import { mortgageFileEntity } from './mortgage-file.entity';

const dateTime = z.iso.datetime({ offset: true });

interface RecordPartSpec {
  type: string;
  label: string;
  segment: string;
  itemParam: string;
  names: { singular: string; plural: string };
  /** Writable fields besides `borrower_id`. */
  fields: z.ZodObject;
  /** Fields a create must have (never cleared by an update). */
  required: string[];
  borrowerRequired: boolean;
  /** The answer's field schemas (besides the common ones and `borrower_id`). */
  answer: z.ZodRawShape;
  /** Default values on create. */
  defaults?: Record<string, unknown>;
}

/**
 * A file holds at most this many records of each kind. Its answer shows them all (resources.md §5
 * Read, spec §2), and one Lambda answers at most 6 MB: 100 incomes with 5,000-character notes are
 * under 4 MB however their characters are escaped; without a bound the file's GET and PATCH could
 * not be answered at all.
 */
export const RECORDS_PER_FILE_MAX = 100;

/** The borrower a record names must be one of this file's borrowers (resources.md §7: 400). */
function checkedBorrower(family: Family, borrowerId: unknown): void {
  if (borrowerId === null || borrowerId === undefined) return;
  if (!siblingsOf(family, borrowerPart).some((borrower) => borrower.id === borrowerId)) {
    throw invalid('borrower_id: not a borrower of this mortgage file');
  }
}

/**
 * Incomes, bank accounts and obligations: plain records of a file, each naming one of its borrowers
 * (resources.md §7). Declared once here; storage, routes and the file's answer come from the part machinery.
 */
function recordPart(spec: RecordPartSpec): PartDefinition {
  const borrowerId = spec.borrowerRequired ? recordId('borrower') : recordId('borrower').nullable();
  const writable = spec.fields.extend({ borrower_id: borrowerId });
  const fieldNames = Object.keys(writable.shape);
  const optionalShape = Object.fromEntries(fieldNames.map((name) => [name, (writable.shape[name] as z.ZodType).nullable().optional()]));
  const required = spec.borrowerRequired ? ['borrower_id', ...spec.required] : spec.required;
  // Required values are checked by the create's own rule (a blank one is missing too); the description says which.
  const createSchema = z.object(optionalShape).meta({ id: `Create${spec.names.singular.charAt(0).toUpperCase()}${spec.names.singular.slice(1)}Request`, required });
  const updateSchema = z.object(optionalShape).meta({ id: `Update${spec.names.singular.charAt(0).toUpperCase()}${spec.names.singular.slice(1)}Request` });
  const recordSchema = z
    .object({
      id: z.uuid(),
      organization_id: z.uuid(),
      mortgage_file_id: z.uuid(),
      borrower_id: z.uuid().nullable(),
      ...spec.answer,
      created_by: z.uuid().nullable(),
      created_at: dateTime,
      updated_at: dateTime,
    })
    .meta({ id: spec.label.replace(/ /g, '') });

  return definePart({
    type: spec.type,
    label: spec.label,
    parent: mortgageFileEntity,
    parentIdField: 'mortgage_file_id',
    segment: spec.segment,
    itemParam: spec.itemParam,
    names: spec.names,
    schemas: { create: createSchema, update: updateSchema, record: recordSchema, list: z.object({ data: z.array(recordSchema), count: z.number().int() }).meta({ id: `${spec.label.replace(/ /g, '')}List` }) },
    fields: [...fieldNames, 'created_by'],
    maxPerParent: RECORDS_PER_FILE_MAX,
    build(input, context, family) {
      const values: Record<string, unknown> = { ...spec.defaults };
      for (const name of fieldNames) {
        const value = emptyToNull(input[name] ?? null);
        if (value !== null || !(name in values)) values[name] = value;
      }
      const missing = required.filter((name) => values[name] === null || values[name] === undefined);
      if (missing.length > 0) throw invalid(`${missing.join(', ')}: required`);
      checkedBorrower(family, values.borrower_id);
      return { ...values, created_by: context.userId };
    },
    change(current: StoredRecord, input, _context, family) {
      const provided: Record<string, unknown> = Object.fromEntries(fieldNames.flatMap((name) => (input[name] === undefined ? [] : [[name, emptyToNull(input[name])]])));
      if (Object.keys(provided).length === 0) throw noUpdatableFields();
      const cleared = required.filter((name) => name in provided && provided[name] === null);
      if (cleared.length > 0) throw invalid(`${cleared.join(', ')}: cannot be cleared`);
      if ('borrower_id' in provided) checkedBorrower(family, provided.borrower_id);
      for (const [name, value] of Object.entries(spec.defaults ?? {})) if (provided[name] === null) provided[name] = value;
      return provided;
    },
  });
}

export const incomePart = recordPart({
  type: 'INCOME',
  label: 'Income',
  segment: 'incomes',
  itemParam: 'incomeId',
  names: { singular: 'income', plural: 'incomes' },
  fields: z.object({
    income_type: listValue('income-types'),
    employer_name: text(NAME_MAX),
    monthly_amount: amountSchema(),
    start_date: z.union([z.literal(''), calendarDate()]),
    notes: text(FREE_TEXT_MAX),
  }),
  required: ['income_type', 'monthly_amount'],
  borrowerRequired: true,
  answer: {
    income_type: z.string(),
    employer_name: z.string().nullable(),
    monthly_amount: z.number(),
    start_date: z.string().nullable(),
    notes: z.string().nullable(),
  },
});

export const bankAccountPart = recordPart({
  type: 'BANK_ACCOUNT',
  label: 'Bank account',
  segment: 'bank-accounts',
  itemParam: 'accountId',
  names: { singular: 'bankAccount', plural: 'bankAccounts' },
  fields: z.object({
    bank_code: listValue('banks'),
    branch: z.union([z.literal(''), z.string({ error: 'must be a string' }).trim().regex(/^\d{1,3}$/, 'must be 1 to 3 digits')]),
    account_number: z.union([z.literal(''), z.string({ error: 'must be a string' }).trim().regex(/^\d{2,12}$/, 'must be 2 to 12 digits')]),
    balance: signedAmountSchema(-1_000_000_000),
    is_salary_account: z.boolean({ error: 'must be true or false' }),
  }),
  required: ['bank_code'],
  borrowerRequired: false,
  defaults: { is_salary_account: false },
  answer: {
    bank_code: z.string(),
    branch: z.string().nullable(),
    account_number: z.string().nullable(),
    balance: z.number().nullable(),
    is_salary_account: z.boolean(),
  },
});

export const obligationPart = recordPart({
  type: 'OBLIGATION',
  label: 'Obligation',
  segment: 'obligations',
  itemParam: 'obligationId',
  names: { singular: 'obligation', plural: 'obligations' },
  fields: z.object({
    obligation_type: listValue('obligation-types'),
    lender: text(NAME_MAX),
    monthly_payment: amountSchema(),
    remaining_balance: amountSchema(),
    end_date: z.union([z.literal(''), calendarDate()]),
  }),
  required: ['obligation_type', 'monthly_payment'],
  borrowerRequired: false,
  answer: {
    obligation_type: z.string(),
    lender: z.string().nullable(),
    monthly_payment: z.number(),
    remaining_balance: z.number().nullable(),
    end_date: z.string().nullable(),
  },
});

export const FILE_RECORD_PARTS = { incomes: incomePart, bank_accounts: bankAccountPart, obligations: obligationPart } as const;
