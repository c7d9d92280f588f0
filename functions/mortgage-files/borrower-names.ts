import { buildSearchText } from '../../shared/http/list-query';
import type { StoredRecord } from '../../shared/resources/entity';
import { findRecordIds, searchTextOf } from '../../shared/resources/entity.repository';
import { retryOnVersionConflict, VersionConflict, WriteBatch } from '../../shared/resources/write-batch';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { nowIso } from '../../shared/ids';
import { entityKeys } from '../../shared/storage/keys';
import { finishMarked } from '../../shared/resources/finish-deletes';
import { queryAll } from '../../shared/storage/paginated-requests';
import { idsFromRows } from '../../shared/storage/rows-complete';
import { linkedFileIds } from '../customers/customer-file-links';
import { MORTGAGE_FILE_TYPE } from './file-rows';

/**
 * A file's search covers its borrowers' names (resources.md §5): each borrower link keeps its
 * customer's names (`search_names`) and the file keeps them joined (`borrower_names`) in its search
 * text. The borrower part writes them with the link; a change of a customer's names rewrites them
 * on every file the customer is a borrower of, in the customer's own transaction. This module is
 * free of the file's entity (which imports the customer's), so the customer's entity can use it;
 * it reads a file's partition and moves its version as the part machinery does (child-entity.ts).
 */
export const FILE_SEARCH_FIELDS = ['file_number', 'property_city', 'property_address', 'borrower_names'] as const;

export const BORROWER_TYPE = 'BORROWER';

/**
 * One customer write refreshes at most this many files (two items each) in its own transaction, so
 * that with a borrower write's own items (its requirements among them) it stays within one
 * transaction's 100; the files beyond follow in transactions of their own once it has committed.
 */
const MAX_FILES_PER_RENAME = 25;

/** Storage type of the customer (its entity imports this module). */
const CUSTOMER_TYPE = 'CUSTOMER';

/** The customer's fields a borrower copies for its file's search. */
export const CUSTOMER_NAME_FIELDS = ['first_name', 'last_name', 'entity_name', 'nickname'] as const;

export const customerNames = (customer: Record<string, unknown>) =>
  CUSTOMER_NAME_FIELDS.map((field) => customer[field]).filter((value) => typeof value === 'string').join(' ');

export const borrowerNamesText = (names: Array<unknown>) => buildSearchText(names.map((value) => (typeof value === 'string' ? value : null)));

/**
 * Adds to `batch` the rewrite of the customer's names on its borrower links and on those files'
 * search text, conditional on each file's version (a concurrent write of the file makes the
 * caller read again). `exceptFileId`: the file a borrower write is changing itself. Files beyond
 * what one transaction holds are refreshed after `batch` commits (`refreshNamesOnFiles`).
 */
export async function planBorrowerNamesRefresh(
  organizationId: string,
  customer: StoredRecord,
  batch: WriteBatch,
  exceptFileId?: string,
): Promise<void> {
  const more = await planNamesOnFiles(organizationId, customer.id, customerNames(customer), batch, exceptFileId);
  if (!more) return;
  // Marked in the rename's own transaction, unmarked once every file has the names: a refresh
  // that fails or stops half-way is finished by the sweep (`finishUnfinishedRenames`).
  const at = nowIso();
  batch.add({ Put: { TableName: getTableName(), Item: { ...entityKeys.renaming(CUSTOMER_TYPE, organizationId, customer.id, at), organization_id: organizationId, pending_since: at } } });
  batch.afterCommit(async () => {
    await refreshNamesOnFiles(organizationId, customer.id);
    await unmarkRename(organizationId, customer.id, at);
  });
}

/** The rename's marker goes, unless a later rename of the customer has marked it again meanwhile (that one's refresh removes it). */
async function unmarkRename(organizationId: string, customerId: string, at: string): Promise<void> {
  const { pk, sk } = entityKeys.renaming(CUSTOMER_TYPE, organizationId, customerId, at);
  try {
    await getDocumentClient().send(
      new DeleteCommand({ TableName: getTableName(), Key: { pk, sk }, ConditionExpression: 'pending_since = :at', ExpressionAttributeValues: { ':at': at } }),
    );
  } catch (error) {
    if ((error as Error)?.name !== 'ConditionalCheckFailedException') throw error;
  }
}

/** A rename still marked this long after it committed is taken as stopped half-way. */
export const UNFINISHED_RENAME_GRACE_MS = 60_000;

/**
 * The sweep's part for renames: every customer whose names a stopped or failed process left
 * unwritten on some files (its marker older than `graceMs`) gets them on all of them now, with the
 * same idempotent refresh. Returns how many it finished; one that fails stays marked.
 */
export async function finishUnfinishedRenames(graceMs = UNFINISHED_RENAME_GRACE_MS, now = Date.now()): Promise<number> {
  return finishMarked(entityKeys.renamingShard, graceMs, now, 'rename', async (customer, at) => {
    await refreshNamesOnFiles(customer.organizationId, customer.id);
    await unmarkRename(customer.organizationId, customer.id, at);
  });
}

/**
 * The rest of a rename, in transactions of up to MAX_FILES_PER_RENAME files: each reads the
 * customer's names as they are now (a later rename's refresh may already be running) and writes
 * only the links whose names differ, conditional on the customer's and the files' versions, so
 * two renames in a row end with the last one's names everywhere.
 */
export async function refreshNamesOnFiles(organizationId: string, customerId: string): Promise<void> {
  const key = entityKeys.record(CUSTOMER_TYPE, organizationId, customerId);
  for (let more = true; more; ) {
    more = await retryOnVersionConflict(async () => {
      const { Item: customer } = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: key, ConsistentRead: true }));
      if (!customer) return false;
      const batch = new WriteBatch();
      const left = await planNamesOnFiles(organizationId, customerId, customerNames(customer), batch);
      if (batch.items.length === 0) return false;
      batch.requireVersion(key, typeof customer.version === 'number' ? customer.version : 0, () => new VersionConflict());
      await batch.commit();
      return left;
    });
  }
}

/**
 * Files whose customer or one of whose borrowers may be this customer: the customer's own rows of
 * them (customer-file-links.ts), read by key and strongly consistent, so a borrower added a moment
 * before the rename gets the new names even while the index lags; while the organization's rows
 * are not complete, the files' index (its `customer_id` filter) as well.
 */
async function filesNamingCustomer(organizationId: string, customerId: string): Promise<string[]> {
  const { ids } = await idsFromRows('customer_file_rows', organizationId, linkedFileIds(organizationId, customerId), async () =>
    (await findRecordIds(FILES_BY_CUSTOMER, organizationId, { customer_id: customerId })).map((file) => file.id),
  );
  return ids;
}

/** The files' index as the file list's `customer_id` filter reads it (a file's customer and its borrowers' customers: mortgage-file.entity.ts). */
const FILES_BY_CUSTOMER = { type: MORTGAGE_FILE_TYPE, multiValueFilters: ['customer_id'] };

/** Plans the names on up to MAX_FILES_PER_RENAME files whose links still differ; true when more files differ. */
async function planNamesOnFiles(organizationId: string, customerId: string, names: string, batch: WriteBatch, exceptFileId?: string): Promise<boolean> {
  const pks = (await filesNamingCustomer(organizationId, customerId))
    .filter((fileId) => fileId !== exceptFileId)
    .map((fileId) => entityKeys.record(MORTGAGE_FILE_TYPE, organizationId, fileId).pk);
  const families = await Promise.all(
    pks.map((pk) =>
      queryAll({
        TableName: getTableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :file)',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':pk': pk, ':file': MORTGAGE_FILE_TYPE },
        ProjectionExpression: 'pk, sk, #version, file_number, property_city, property_address, customer_id, search_names',
        ConsistentRead: true,
      }),
    ),
  );
  let planned = 0;
  for (const items of families) {
    const file = items.find((item) => item.sk === MORTGAGE_FILE_TYPE);
    const links = items.filter((item) => (item.sk as string).startsWith(`${MORTGAGE_FILE_TYPE}#${BORROWER_TYPE}#`));
    const own = links.filter((link) => link.customer_id === customerId && link.search_names !== names);
    if (!file || own.length === 0) continue;
    if (planned >= MAX_FILES_PER_RENAME) return true;
    planned += 1;
    const borrowerNames = borrowerNamesText(links.map((link) => (link.customer_id === customerId ? names : link.search_names)));
    const searchText = searchTextOf(FILE_SEARCH_FIELDS, { ...file, borrower_names: borrowerNames });
    // The file's answer (its borrowers' names) changed: it moves to its next version, as on a borrower write.
    batch.moveVersion({ pk: file.pk as string, sk: file.sk as string }, typeof file.version === 'number' ? file.version : 0, {
      borrower_names: borrowerNames,
      search_text: searchText,
    });
    for (const link of own) {
      batch.add(
        {
          Update: {
            TableName: getTableName(),
            Key: { pk: link.pk, sk: link.sk },
            UpdateExpression: 'SET search_names = :names',
            ConditionExpression: 'customer_id = :customer',
            ExpressionAttributeValues: { ':names': names, ':customer': customerId },
          },
        },
        () => new VersionConflict(),
      );
    }
  }
  return false;
}
