import * as z from 'zod';
import { conflict, recordNotFound, validationFailed } from '../../shared/http/errors';
import { childOperations, defineChild, sentFields } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { holdRecord, recordFromItem, sameValue } from '../../shared/resources/entity.repository';
import { knownRecords } from '../../shared/resources/known-records';
import { VersionConflict, type WriteBatch } from '../../shared/resources/write-batch';
import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { batchGetAll, itemWithKey } from '../../shared/storage/paginated-requests';
import { listValues } from '../../shared/lists/system-lists';
import { emptyToNull, FREE_TEXT_MAX, listValue, recordId, text } from '../../shared/validation/fields';
import { contactEntity, contactSchema } from '../contacts/contact.entity';
import { contactLinkRowDelete, contactLinkRowPut, contactLinksPartition, FILE_CONTACT_TYPE, guardKey } from './contact-links';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * resources.md §9.4: the professional contacts linked to a file, each in a role. One link per
 * (contact, role) and file: a guard item `FILE_CONTACT_GUARD#<contact_id>#<role>` in the file's
 * partition names the link holding that pair; it is put (conditional on being new) in the
 * transaction that creates the link or moves it to that role, and removed with the link or its old
 * role. A guard taken meanwhile makes the write plan again, which then answers 409 with
 * `existing_link_id`.
 *
 * A deleted contact: `DELETE /contacts/{id}` removes its links (resources.md §4); a link whose contact
 * is gone nevertheless (a delete racing a link) is listed with `contact: null`, never an error.
 */
export { FILE_CONTACT_TYPE };

const dateTime = z.iso.datetime({ offset: true });

export const fileContactSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    contact_id: z.uuid(),
    role: z.string(),
    notes: z.string().nullable(),
    /** The linked contact (resources.md §4); `null` when it was deleted meanwhile. */
    contact: contactSchema.nullable(),
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'FileContact' });

const createFileContactSchema = z
  .object({
    contact_id: recordId('contact'),
    role: z.union([z.literal(''), listValue('contact-types')]).nullable().optional(),
    notes: text(FREE_TEXT_MAX).nullable().optional(),
  })
  .meta({ id: 'CreateFileContactRequest' });
const updateFileContactSchema = z
  .object({
    role: z.union([z.literal(''), listValue('contact-types')]).nullable().optional(),
    notes: text(FREE_TEXT_MAX).nullable().optional(),
  })
  .meta({ id: 'UpdateFileContactRequest' });


const linkTaken = (existingLinkId: string) =>
  conflict('Contact already linked in this role', { details: 'This contact already has this role on the mortgage file', extra: { existing_link_id: existingLinkId } });

/** The guard of (contact, role), conditional on being new. */
function planGuardPut(batch: WriteBatch, organizationId: string, fileId: string, contactId: string, role: string, linkId: string): void {
  batch.add(
    {
      Put: {
        TableName: getTableName(),
        Item: { ...guardKey(organizationId, fileId, contactId, role), entity: 'file_contact_guard', organization_id: organizationId, mortgage_file_id: fileId, link_id: linkId },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    // Taken meanwhile: plan again (the guard is then read and answered as 409 with its link).
    () => new VersionConflict(),
  );
}

function planGuardDelete(batch: WriteBatch, organizationId: string, fileId: string, contactId: string, role: string): void {
  batch.add({ Delete: { TableName: getTableName(), Key: guardKey(organizationId, fileId, contactId, role) } });
}

/**
 * The contacts of the links (one BatchGetItem, consistent: the answer's ETag stands for them and
 * If-Match is judged against it); a deleted contact is `null`.
 */
async function withContacts(records: StoredRecord[], parent: StoredRecord): Promise<StoredRecord[]> {
  if (records.length === 0) return records;
  const contacts = await knownRecords(parent).records(contactEntity, parent.organization_id, records.map((record) => record.contact_id as string));
  return records.map((record) => ({ ...record, contact: contacts.get(record.contact_id as string) ?? null }));
}

const FILE_CONTACT_LABEL = 'File contact';

export const fileContactChild = defineChild({
  type: FILE_CONTACT_TYPE,
  label: FILE_CONTACT_LABEL,
  entity: 'file_contact',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'contacts',
  itemParam: 'linkId',
  names: { singular: 'fileContact', plural: 'fileContacts' },
  schemas: {
    create: createFileContactSchema,
    update: updateFileContactSchema,
    record: fileContactSchema,
    list: z.object({ data: z.array(fileContactSchema), count: z.number().int() }).meta({ id: 'FileContactList' }),
  },
  fields: ['contact_id', 'role', 'notes', 'created_by'],
  // The contact's links across files (gsi2), so the contact's delete removes them (resources.md §4).
  indexes: (record) => ({ gsi2pk: contactLinksPartition(record.organization_id, record.contact_id as string), gsi2sk: `${record.mortgage_file_id}#${record.id}` }),
  filters: { role: listValue('contact-types'), contact_id: recordId('contact') },
  async build(input, { context, parent }) {
    const contactId = input.contact_id as string;
    const requestedRole = emptyToNull((input.role as string | null | undefined) ?? null);
    // The contact and the guards of every role it could take (the default role is the contact's
    // type, known only after the read): one consistent BatchGetItem.
    const contactKey = entityKeys.record(contactEntity.type, context.organizationId, contactId);
    const roles = requestedRole ? [requestedRole] : listValues('contact-types');
    const items = await batchGetAll([contactKey, ...roles.map((role) => guardKey(context.organizationId, parent.id, contactId, role))], { consistentRead: true });
    const contactItem = itemWithKey(items, contactKey);
    if (!contactItem) throw validationFailed('contact_id: not a contact of the organization');
    const contact = recordFromItem(contactEntity, contactItem);
    // The answer shows the contact as read here, with the guards.
    knownRecords(parent).rememberRecord(contactEntity, contact);
    const role = requestedRole ?? (contact.type as string);
    const roleGuard = guardKey(context.organizationId, parent.id, contactId, role);
    const guard = itemWithKey(items, roleGuard);
    if (guard) throw linkTaken(guard.link_id as string);
    return { contact_id: contactId, role, notes: emptyToNull((input.notes as string | null | undefined) ?? null), created_by: context.userId };
  },
  // The guard names the link, whose id exists only now.
  afterCreate(record, { context }, batch) {
    planGuardPut(batch, context.organizationId, record.mortgage_file_id as string, record.contact_id as string, record.role as string, record.id);
    // The contact must still exist, and a delete racing this link reads again and takes it along.
    holdRecord(contactEntity, context.organizationId, record.contact_id as string, batch, () => validationFailed('contact_id: not a contact of the organization'));
    batch.add(contactLinkRowPut(context.organizationId, record));
  },
  async change(current, input, { context }, batch) {
    const provided = Object.fromEntries(Object.entries(sentFields(input, ['role', 'notes'], ['role'])).map(([name, value]) => [name, emptyToNull(value)]));
    const changed = Object.fromEntries(Object.entries(provided).filter(([name, value]) => !sameValue(current[name], value)));
    if (typeof changed.role === 'string') {
      const fileId = current.mortgage_file_id as string;
      const contactId = current.contact_id as string;
      const [guard] = await batchGetAll([guardKey(context.organizationId, fileId, contactId, changed.role)], { consistentRead: true });
      if (guard) throw linkTaken(guard.link_id as string);
      planGuardDelete(batch, context.organizationId, fileId, contactId, current.role as string);
      planGuardPut(batch, context.organizationId, fileId, contactId, changed.role, current.id);
      batch.add(contactLinkRowPut(context.organizationId, { ...current, role: changed.role }));
      // The contact's delete removes the guard of the role it read: one racing this change reads again.
      // A contact gone takes its links along (resources.md §4): this link is gone, or about to be.
      holdRecord(contactEntity, context.organizationId, contactId, batch, () => recordNotFound(FILE_CONTACT_LABEL));
    }
    return changed;
  },
  beforeDelete(record, { context }, batch) {
    planGuardDelete(batch, context.organizationId, record.mortgage_file_id as string, record.contact_id as string, record.role as string);
    batch.add(contactLinkRowDelete(context.organizationId, record));
  },
  present: (records, parent) => withContacts(records, parent),
  // The answer shows the contact: a change of it (through /contacts) changes the link's ETag.
  joined: (presented) => [presented.contact],
});

export const fileContactOperations = childOperations(fileContactChild);
