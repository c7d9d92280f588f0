import * as z from 'zod';
import { conflict, noUpdatableFields, validationFailed as invalid } from '../../shared/http/errors';
import { defineEntity, type StoredRecord } from '../../shared/resources/entity';
import {
  calendarDate,
  emptyToNull,
  FREE_TEXT_MAX,
  listValue,
  NAME_MAX,
  PHONE_MAX,
  text,
  TITLE_MAX,
  todayInIsrael,
  trimmedEmailAddress,
} from '../../shared/validation/fields';
import { normalizeIdNumber, type IdType } from './id-number';
import { customerNames, planBorrowerNamesRefresh } from '../mortgage-files/borrower-names';


/** Fields a client writes on a customer (resources.md §3). */
const customerFields = z.object({
  id_type: z.union([z.literal(''), listValue('id-types')]),
  id_number: text(20),
  first_name: text(NAME_MAX),
  last_name: text(NAME_MAX),
  entity_name: text(NAME_MAX),
  nickname: text(NAME_MAX),
  phone: text(PHONE_MAX),
  email: trimmedEmailAddress(),
  birth_date: z.union([z.literal(''), calendarDate()]),
  address: text(TITLE_MAX),
  city: text(NAME_MAX),
  marital_status: z.union([z.literal(''), listValue('marital-statuses')]),
  education: z.union([z.literal(''), listValue('education-levels')]),
  residence_type: z.union([z.literal(''), listValue('residence-types')]),
  employment_type: z.union([z.literal(''), listValue('employment-types')]),
  notes: text(FREE_TEXT_MAX),
});
type CustomerFields = z.infer<typeof customerFields>;
const FIELDS = Object.keys(customerFields.shape) as Array<keyof CustomerFields>;

/** Every field optional and nullable; what null and the empty string mean is decided by create and update. */
const optionalCustomerFields = () =>
  Object.fromEntries(FIELDS.map((field) => [field, customerFields.shape[field].nullable().optional()])) as {
    [K in keyof CustomerFields]: z.ZodOptional<z.ZodNullable<(typeof customerFields.shape)[K]>>;
  };
/** Create: null or an empty string is no value; the name rules are checked on the whole record. */
export const createCustomerSchema = z.object(optionalCustomerFields()).meta({ id: 'CreateCustomerRequest' });
/** Update: a field sent as null is ignored (spec §2: null never erases); an empty string clears. */
export const updateCustomerSchema = z.object(optionalCustomerFields()).meta({ id: 'UpdateCustomerRequest' });

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();
export const customerSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    id_type: nullable(listValue('id-types')),
    id_number: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    entity_name: z.string().nullable(),
    nickname: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    birth_date: z.string().nullable(),
    address: z.string().nullable(),
    city: z.string().nullable(),
    marital_status: z.string().nullable(),
    education: z.string().nullable(),
    residence_type: z.string().nullable(),
    employment_type: z.string().nullable(),
    notes: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime({ offset: true }),
    updated_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'Customer' });
export type Customer = z.infer<typeof customerSchema>;


/**
 * The rules on the whole record (create, and the record an update would leave): names, the id
 * type and number, the birth date. Returns the record with its id number as stored.
 */
function checkedCustomer(record: Record<string, unknown>): Record<string, unknown> {
  const hasPersonName = Boolean(record.first_name) && Boolean(record.last_name);
  if (!hasPersonName && !record.entity_name) {
    throw invalid('first_name and last_name, or entity_name, are required');
  }
  let idType = (record.id_type as IdType | null) ?? null;
  if (record.id_number && !idType) idType = 'personal_id';
  if ((idType === 'company' || idType === 'association') && !record.entity_name) {
    throw invalid(`entity_name: required when id_type is ${idType}`);
  }
  let idNumber = (record.id_number as string | null) ?? null;
  if (idNumber && idType) {
    const normalized = normalizeIdNumber(idType, idNumber);
    if ('error' in normalized) throw invalid(`id_number: ${normalized.error}`);
    idNumber = normalized.value;
  }
  if (typeof record.birth_date === 'string' && record.birth_date > todayInIsrael()) {
    throw invalid('birth_date: must not be in the future');
  }
  return { ...record, id_type: idType, id_number: idNumber };
}

export const customerEntity = defineEntity({
  type: 'CUSTOMER',
  label: 'Customer',
  path: '/customers',
  names: { singular: 'customer', plural: 'customers' },
  schemas: {
    create: createCustomerSchema,
    update: updateCustomerSchema,
    record: customerSchema,
    list: z.object({ data: z.array(customerSchema), count: z.number().int() }).meta({ id: 'CustomerList' }),
    filters: { id_type: listValue('id-types') },
  },
  searchFields: ['first_name', 'last_name', 'entity_name', 'nickname', 'phone', 'email', 'id_number'],
  unique: [
    {
      field: 'id_number',
      conflict: () => conflict('Duplicate id_number', { code: '23505', details: 'Another customer of the organization has this id_number' }),
    },
  ],
  build(input, context) {
    const record: Record<string, unknown> = {};
    for (const field of FIELDS) record[field] = emptyToNull(input[field] ?? null);
    return { ...checkedCustomer(record), created_by: context.userId };
  },
  async change(current: StoredRecord, input, context, checks) {
    const provided = Object.fromEntries(
      FIELDS.flatMap((field) => (input[field] === undefined || input[field] === null ? [] : [[field, emptyToNull(input[field])]])),
    );
    if (Object.keys(provided).length === 0) throw noUpdatableFields();
    const checked = checkedCustomer({ ...current, ...provided });
    const changes = Object.fromEntries(FIELDS.map((field) => [field, checked[field]]));
    // The files this customer is a borrower of find it by its names: they change with them.
    if (customerNames(changes) !== customerNames(current)) {
      await planBorrowerNamesRefresh(context.organizationId, { ...current, ...changes }, checks, context.borrowerFileId);
    }
    return changes;
  },
});
