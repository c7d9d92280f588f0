import type { Operation } from '../../shared/http/operation';
import { crudOperations } from '../../shared/resources/crud-operations';
import { defineEntity, type StoredRecord } from '../../shared/resources/entity';
import { contactLinkDeletes, deleteContactLinks } from '../mortgage-files/contact-links';
import { contactEntity } from './contact.entity';

/** Deletes of file links that fit the contact's own transaction (DynamoDB: 100 items; the delete, its counter and the log take 3). */
const LINK_DELETES_IN_TRANSACTION = 90;
const leftOver = new WeakSet<StoredRecord>();

/**
 * The contact as its delete sees it: its file links (resources.md §4, §9.4) go in the same
 * transaction; a contact with more links than fit has the rest removed right after.
 */
const contactWithLinks = defineEntity({
  ...contactEntity,
  beforeDelete: async (record, context, batch) => {
    const deletes = await contactLinkDeletes(context.organizationId, record.id);
    if (deletes.length > LINK_DELETES_IN_TRANSACTION) leftOver.add(record);
    batch.addAll(deletes.slice(0, LINK_DELETES_IN_TRANSACTION));
  },
  // The rest, read again: the sweep that finishes deletes does the same (scheduler-target).
  afterDelete: async (record) => {
    if (leftOver.has(record)) await deleteContactLinks(record.organization_id, record.id);
  },
  afterDeleteNeeded: (record) => leftOver.has(record),
});

/** Professional contacts (spec §4 Contacts, resources.md §4). */
export const contactOperations: Operation[] = crudOperations(contactWithLinks);
