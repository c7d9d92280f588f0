import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { versionOf, withVersion } from '../../shared/http/record-version';
import { getLogger } from '../../shared/logger';
import { parentVersionUpdate, readFamily, siblingsOf, type Family } from '../../shared/resources/child-entity';
import { holdRecord, internalsOf, withInternals } from '../../shared/resources/entity.repository';
import { finishMarked } from '../../shared/resources/finish-deletes';
import { VersionConflict, WRITE_ATTEMPTS, WriteBatch } from '../../shared/resources/write-batch';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import type { TransactItem } from '../../shared/storage/transactions';
import { customerEntity } from '../customers/customer.entity';
import { customerFileLinkDelete } from '../customers/customer-file-links';
import { borrowerPart, mainBorrowerOf } from './borrower.part';
import { MORTGAGE_FILE_TYPE } from './file-rows';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * A new file is written first with what every borrower would give it (the search names, the
 * borrowers' customers, and, `customer_id` omitted, the main borrower's customer, which may be new
 * and written only with its borrower); each borrower follows in a transaction of its own. Until the
 * file is settled (its last borrower written, or the file corrected after one that was not), a
 * marker in the file's partition (`entityKeys.settling`) says what the create wrote and was sent:
 * should the process stop in between, the sweep settles the file from the borrowers that were
 * written (`finishUnfinishedFileCreates`), so no file keeps naming a customer that was never written.
 */
export interface FileCreateMarker {
  /** The file's `customer_id` as its create wrote it. */
  created: string | null;
  /** The `customer_id` sent in the create's body, if any. */
  named: string | undefined;
  /** The time of the create: the marker's key. */
  at: string;
}

const markerKey = (organizationId: string, fileId: string, at: string) => entityKeys.settling(MORTGAGE_FILE_TYPE, organizationId, fileId, at);

/** The marker's put, in the file's own transaction. */
export function fileCreateMarkerPut(organizationId: string, fileId: string, marker: FileCreateMarker): TransactItem {
  return {
    Put: {
      TableName: getTableName(),
      Item: {
        ...markerKey(organizationId, fileId, marker.at),
        organization_id: organizationId,
        pending_since: marker.at,
        created_customer_id: marker.created,
        named_customer_id: marker.named ?? null,
      },
    },
  };
}

/** The marker's removal, in the write that settles the file. */
export function fileCreateMarkerDelete(organizationId: string, fileId: string, at: string): TransactItem {
  const { pk, sk } = markerKey(organizationId, fileId, at);
  return { Delete: { TableName: getTableName(), Key: { pk, sk } } };
}

/**
 * A borrower of a new file that could not be written leaves no trace on the file: one more write
 * sets the file's attributes from the borrowers that were written: `customer_id` is the main one's
 * customer among them, or null (resources.md §5). A `customer_id` sent that was also a borrower's
 * was held by that borrower's write alone: this write holds it, and when it is gone (a delete that
 * read before the file was written) the file names no customer. The write is conditional on the
 * version of the family given: another write of the file meanwhile (a borrower added by a client
 * that saw the file's event) makes it read the file again and settle from what is stored, leaving a
 * `customer_id` that write changed as it is. The write removes the create's marker. Should it fail
 * anyway, the answer is the family given, and the marker stays for the sweep.
 */
export async function settleFromWrittenBorrowers(saved: Family, marker: FileCreateMarker): Promise<Family> {
  const { created, named } = marker;
  let family: Family = { ...saved, fresh: false };
  for (let attempt = 1; ; attempt++) {
    const written = siblingsOf(family, borrowerPart);
    const stored = (family.parent.customer_id ?? null) as string | null;
    const customerId = stored !== created ? stored : (((named ? created : mainBorrowerOf(written)?.customer_id) ?? null) as string | null);
    const unheld = typeof customerId === 'string' && customerId === named && !written.some((borrower) => borrower.customer_id === customerId);
    try {
      return await settleFile(family, customerId, unheld, marker.at);
    } catch (error) {
      if (error instanceof VersionConflict && attempt < WRITE_ATTEMPTS) {
        const again = await readFamily(mortgageFileEntity, saved.parent.organization_id, saved.parent.id).catch(() => undefined);
        if (again) {
          family = again;
          continue;
        }
      }
      getLogger().error('a new file keeps the attributes of a borrower that was not written; the sweep settles it', { error_name: (error as Error)?.name });
      return saved;
    }
  }
}

class CustomerGone extends Error {}

/**
 * The file's attributes from its written borrowers, with `customer_id` (held when `hold`), at the
 * version read; a held customer that is gone leaves the file naming none.
 */
async function settleFile(family: Family, customerId: string | null, hold: boolean, at: string): Promise<Family> {
  try {
    return await settleFileAs(family, customerId, hold, at);
  } catch (error) {
    if (!(error instanceof CustomerGone)) throw error;
    return settleFileAs(family, null, false, at);
  }
}

async function settleFileAs(family: Family, customerId: string | null, hold: boolean, at: string): Promise<Family> {
  const parent = withInternals(withVersion({ ...family.parent, customer_id: customerId }, versionOf(family.parent) ?? 1), { ...internalsOf(family.parent) });
  const settled: Family = { parent, parts: family.parts };
  const organizationId = family.parent.organization_id;
  const batch = new WriteBatch();
  parentVersionUpdate(borrowerPart, settled, batch, { customer_id: customerId });
  if (hold && customerId) holdRecord(customerEntity, organizationId, customerId, batch, () => new CustomerGone());
  // The row the file's create put for a customer it no longer names (one that was never written, or is gone).
  const previous = family.parent.customer_id;
  if (typeof previous === 'string' && previous !== customerId && !siblingsOf(family, borrowerPart).some((borrower) => borrower.customer_id === previous)) {
    batch.add(customerFileLinkDelete(organizationId, previous, family.parent.id));
  }
  batch.add(fileCreateMarkerDelete(organizationId, family.parent.id, at));
  await batch.commit();
  return settled;
}

/** A file create still marked this long after it was committed is taken as stopped half-way. */
export const UNSETTLED_CREATE_GRACE_MS = 60_000;

/**
 * The sweep's part for new files: every file whose create a stopped process left unsettled (its
 * marker older than `graceMs`) is settled now from the borrowers that were written, as the create
 * itself does after a borrower that was not. A file deleted meanwhile only loses the marker.
 * Returns how many it finished; one that fails stays marked.
 */
export async function finishUnfinishedFileCreates(graceMs = UNSETTLED_CREATE_GRACE_MS, now = Date.now()): Promise<number> {
  return finishMarked(entityKeys.settlingShard, graceMs, now, 'file create', async (file, at) => {
    const { pk, sk } = markerKey(file.organizationId, file.id, at);
    const { Item: item } = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: { pk, sk }, ConsistentRead: true }));
    if (!item) return;
    const family = await readFamily(mortgageFileEntity, file.organizationId, file.id);
    if (!family) {
      await getDocumentClient().send(new DeleteCommand({ TableName: getTableName(), Key: { pk, sk } }));
      return;
    }
    const marker: FileCreateMarker = {
      created: typeof item.created_customer_id === 'string' ? item.created_customer_id : null,
      named: typeof item.named_customer_id === 'string' ? item.named_customer_id : undefined,
      at,
    };
    const settled = await settleFromWrittenBorrowers(family, marker);
    if (settled === family) throw new Error('the file could not be settled');
  });
}
