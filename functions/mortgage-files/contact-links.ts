import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { batchWriteAll, queryAll } from '../../shared/storage/paginated-requests';
import type { TransactItem } from '../../shared/storage/transactions';
import { MORTGAGE_FILE_TYPE } from './file-rows';

/**
 * The storage of a contact's links to files (resources.md §9.4), apart from the file-contact
 * resource, so a contact's delete and the sweep that finishes deletes (scheduler-target) reach
 * them without the file's schemas. The rules of the links are in file-contact.child.ts.
 */
const GUARD_TYPE = 'FILE_CONTACT_GUARD';

/** The guard that keeps (contact, role) once per file: a row of the file. */
export const guardKey = (organizationId: string, fileId: string, contactId: string, role: string) =>
  entityKeys.childRow(MORTGAGE_FILE_TYPE, organizationId, fileId, GUARD_TYPE, `${contactId}#${role}`);

/** gsi2 partition of a contact's links, over all files. */
export const contactLinksPartition = (organizationId: string, contactId: string) => `ORG#${organizationId}#CONTACT#${contactId}#FILE_LINKS`;

/**
 * The deletes of every file link of a contact and their guards (for the contact's own delete,
 * resources.md §4): one Query of gsi2. Links to files deleted meanwhile are gone with their file.
 */
export async function contactLinkDeletes(organizationId: string, contactId: string): Promise<TransactItem[]> {
  const links = await queryAll({
    TableName: getTableName(),
    IndexName: 'gsi2',
    KeyConditionExpression: 'gsi2pk = :pk',
    ExpressionAttributeValues: { ':pk': contactLinksPartition(organizationId, contactId) },
    ProjectionExpression: 'pk, sk, mortgage_file_id, #role',
    ExpressionAttributeNames: { '#role': 'role' },
  });
  return links.flatMap((link) => [
    { Delete: { TableName: getTableName(), Key: { pk: link.pk as string, sk: link.sk as string } } },
    { Delete: { TableName: getTableName(), Key: guardKey(organizationId, link.mortgage_file_id as string, contactId, link.role as string) } },
  ]);
}

/** Removes every file link of a contact (and its guard): what remains of them after the contact's delete. */
export async function deleteContactLinks(organizationId: string, contactId: string): Promise<void> {
  const deletes = await contactLinkDeletes(organizationId, contactId);
  await batchWriteAll(deletes.map((item) => ({ DeleteRequest: { Key: item.Delete!.Key as Record<string, unknown> } })));
}
