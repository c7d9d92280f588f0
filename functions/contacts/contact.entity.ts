import * as z from 'zod';
import { badRequest } from '../../shared/http/errors';
import { defineEntity, type StoredRecord } from '../../shared/resources/entity';
import { emptyToNull, FREE_TEXT_MAX, listValue, NAME_MAX, PHONE_MAX, text, trimmedEmailAddress } from '../../shared/validation/fields';


/** Fields a client writes on a professional contact (resources.md §4). */
const contactFields = z.object({
  type: listValue('contact-types'),
  first_name: text(NAME_MAX),
  last_name: text(NAME_MAX),
  company_name: text(NAME_MAX),
  phone: text(PHONE_MAX),
  email: trimmedEmailAddress(),
  bank_code: z.union([z.literal(''), listValue('banks')]),
  branch: text(100),
  notes: text(FREE_TEXT_MAX),
});
type ContactFields = z.infer<typeof contactFields>;
const FIELDS = Object.keys(contactFields.shape) as Array<keyof ContactFields>;
const OPTIONAL_FIELDS = FIELDS.filter((field) => field !== 'type');

/** Create: `type` required; an optional field sent as null or empty is no value. */
export const createContactSchema = z
  .object({
    type: contactFields.shape.type,
    ...Object.fromEntries(OPTIONAL_FIELDS.map((field) => [field, contactFields.shape[field].nullable().optional()])),
  })
  .meta({ id: 'CreateContactRequest' });
/** Update: null clears an optional field; `type` is required and cannot be cleared. */
export const updateContactSchema = z
  .object({
    type: contactFields.shape.type.optional(),
    ...Object.fromEntries(OPTIONAL_FIELDS.map((field) => [field, contactFields.shape[field].nullable().optional()])),
  })
  .meta({ id: 'UpdateContactRequest' });

export const contactSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    type: listValue('contact-types'),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    company_name: z.string().nullable(),
    phone: z.string().nullable(),
    email: z.string().nullable(),
    bank_code: z.string().nullable(),
    branch: z.string().nullable(),
    notes: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: z.iso.datetime({ offset: true }),
    updated_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'Contact' });

function checkedContact(record: Record<string, unknown>): void {
  if (!record.first_name && !record.last_name && !record.company_name) {
    throw badRequest('Validation failed', { details: 'at least one of first_name, last_name, company_name is required' });
  }
}

export const contactEntity = defineEntity({
  type: 'CONTACT',
  label: 'Contact',
  path: '/contacts',
  names: { singular: 'contact', plural: 'contacts' },
  schemas: {
    create: createContactSchema,
    update: updateContactSchema,
    record: contactSchema,
    list: z.object({ data: z.array(contactSchema), count: z.number().int() }).meta({ id: 'ContactList' }),
    filters: { type: listValue('contact-types'), bank_code: listValue('banks') },
  },
  searchFields: ['first_name', 'last_name', 'company_name', 'phone', 'email'],
  build(input, context) {
    const record: Record<string, unknown> = {};
    for (const field of FIELDS) record[field] = emptyToNull(input[field] ?? null);
    checkedContact(record);
    return { ...record, created_by: context.userId };
  },
  change(current: StoredRecord, input) {
    const provided = Object.fromEntries(FIELDS.flatMap((field) => (input[field] === undefined ? [] : [[field, emptyToNull(input[field])]])));
    checkedContact({ ...current, ...provided });
    return provided;
  },
});
