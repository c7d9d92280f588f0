import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { batchDeleteAll, queryAll } from '../../shared/storage/paginated-requests';
import type { TransactItem } from '../../shared/storage/transactions';
import type { DeleteWork } from '../../shared/resources/delete-work';
import { referrerRows } from '../../shared/resources/referrer-rows';
import { MORTGAGE_FILE_TYPE } from './file-rows';

/**
 * The storage of a contact's links to files (resources.md §9.4), apart from the file-contact
 * resource, so a contact's delete and the sweep that finishes deletes (scheduler-target) reach
 * them without the file's schemas. The rules of the links are in file-contact.child.ts.
 */
const GUARD_TYPE = 'FILE_CONTACT_GUARD';

/** Storage type of a file's link to a contact (file-contact.child.ts). */
export const FILE_CONTACT_TYPE = 'FILE_CONTACT';

/**
 * A row of the contact's partition for each of its links (`<file id>#<link id>`, with the role),
 * written and removed with the link: the contact's delete finds a link made a moment before even
 * while gsi2 lags (shared/resources/referrer-rows.ts).
 */
const linkRows = referrerRows('CONTACT', 'FILE_LINK', 'contact_file_link');

export const contactLinkRowPut = (organizationId: string, link: Record<string, unknown> & { id: string }): TransactItem =>
  linkRows.put(organizationId, link.contact_id as string, `${link.mortgage_file_id as string}#${link.id}`, { mortgage_file_id: link.mortgage_file_id, link_id: link.id, role: link.role });

export const contactLinkRowDelete = (organizationId: string, link: Record<string, unknown> & { id: string }): TransactItem =>
  linkRows.remove(organizationId, link.contact_id as string, `${link.mortgage_file_id as string}#${link.id}`);

/** The guard that keeps (contact, role) once per file: a row of the file. */
export const guardKey = (organizationId: string, fileId: string, contactId: string, role: string) =>
  entityKeys.childRow(MORTGAGE_FILE_TYPE, organizationId, fileId, GUARD_TYPE, `${contactId}#${role}`);

/** gsi2 partition of a contact's links, over all files. */
export const contactLinksPartition = (organizationId: string, contactId: string) => `ORG#${organizationId}#CONTACT#${contactId}#FILE_LINKS`;

/**
 * The deletes of every file link of a contact, their guards and the contact's rows of them (for the
 * contact's own delete, resources.md §4): the contact's rows, read by key, and gsi2 (links made
 * before those rows existed), side by side. Links to files deleted meanwhile are gone with their file.
 */
export async function contactLinkDeletes(organizationId: string, contactId: string): Promise<TransactItem[]> {
  const [indexed, rows] = await Promise.all([
    queryAll({
      TableName: getTableName(),
      IndexName: 'gsi2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': contactLinksPartition(organizationId, contactId) },
      ProjectionExpression: 'id, mortgage_file_id, #role',
      ExpressionAttributeNames: { '#role': 'role' },
    }),
    linkRows.read(organizationId, contactId),
  ]);
  const links = new Map<string, { id: string; mortgage_file_id: string; role: string }>();
  for (const link of [...indexed, ...rows.map((row) => ({ id: row.link_id, mortgage_file_id: row.mortgage_file_id, role: row.role }))]) {
    links.set(link.id as string, link as { id: string; mortgage_file_id: string; role: string });
  }
  const keys = [...links.values()].flatMap((link) => [
    entityKeys.childRow(MORTGAGE_FILE_TYPE, organizationId, link.mortgage_file_id, FILE_CONTACT_TYPE, link.id),
    guardKey(organizationId, link.mortgage_file_id, contactId, link.role),
  ]);
  // Each key once: a link the index still shows (deleted since) and a newer one in the same role share their guard.
  const unique = new Map([...keys, ...rows.map((row) => ({ pk: row.pk as string, sk: row.sk as string }))].map((key) => [`${key.pk}|${key.sk}`, key]));
  return [...unique.values()].map((key) => ({ Delete: { TableName: getTableName(), Key: key } }));
}

/**
 * Removes the contacts' rows of a deleted file's links (its follow-up, before the rows of its
 * partition go: the links are read there, consistently). A contact's later delete then has no row of
 * a link that is gone to take along.
 */
export async function deleteContactRowsOfFile(organizationId: string, fileId: string): Promise<void> {
  const links = await queryAll({
    TableName: getTableName(),
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': entityKeys.record(MORTGAGE_FILE_TYPE, organizationId, fileId).pk, ':prefix': `${FILE_CONTACT_TYPE}#` },
    ProjectionExpression: 'id, contact_id, mortgage_file_id',
    ConsistentRead: true,
  });
  const rows = links.map((link) => contactLinkRowDelete(organizationId, link as Record<string, unknown> & { id: string }));
  await batchDeleteAll(rows);
}

/** Removes every file link of a contact (and its guard): what remains of them after the contact's delete. */
export async function deleteContactLinks(organizationId: string, contactId: string): Promise<void> {
  await batchDeleteAll(await contactLinkDeletes(organizationId, contactId));
}

/** Deletes of file links that fit the contact's own transaction (DynamoDB: 100 items; the delete, its counter and the log take 3). */
const LINK_DELETES_IN_TRANSACTION = 90;

/** A contact's delete takes its file links along (resources.md §4, §9.4): in its transaction as far as they fit, the rest right after it. */
export const contactLinksOnDelete: DeleteWork = {
  async plan(record, context, batch) {
    const deletes = await contactLinkDeletes(context.organizationId, record.id);
    batch.addAll(deletes.slice(0, LINK_DELETES_IN_TRANSACTION));
    return deletes.length > LINK_DELETES_IN_TRANSACTION;
  },
  rest: deleteContactLinks,
};
