import type { Operation } from '../../shared/http/operation';
import { crudOperations } from '../../shared/resources/crud-operations';
import { defineEntity, type StoredRecord } from '../../shared/resources/entity';
import { batchWriteAll } from '../../shared/storage/paginated-requests';
import type { TransactItem } from '../../shared/storage/transactions';
import { contactLinkDeletes } from '../mortgage-files/file-contact.child';
import { contactEntity } from './contact.entity';

/** Deletes of file links that fit the contact's own transaction (DynamoDB: 100 items; the delete, its counter and the log take 3). */
const LINK_DELETES_IN_TRANSACTION = 90;
const leftOver = new WeakMap<StoredRecord, TransactItem[]>();

/**
 * The contact as its delete sees it: its file links (resources.md §4, §9.4) go in the same
 * transaction; a contact with more links than fit has the rest removed right after.
 */
const contactWithLinks = defineEntity({
  ...contactEntity,
  beforeDelete: async (record, context, batch) => {
    const deletes = await contactLinkDeletes(context.organizationId, record.id);
    if (deletes.length > LINK_DELETES_IN_TRANSACTION) leftOver.set(record, deletes.slice(LINK_DELETES_IN_TRANSACTION));
    batch.addAll(deletes.slice(0, LINK_DELETES_IN_TRANSACTION));
  },
  afterDelete: async (record) => {
    const rest = leftOver.get(record) ?? [];
    await batchWriteAll(rest.map((item) => ({ DeleteRequest: { Key: item.Delete!.Key as Record<string, unknown> } })));
  },
});

/** Professional contacts (spec §4 Contacts, resources.md §4). */
export const contactOperations: Operation[] = crudOperations(contactWithLinks);
