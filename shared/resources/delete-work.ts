import type { WriteContext } from '../write-context';
import type { StoredRecord } from './entity';
import type { DeleteFollowUp } from './finish-deletes';
import type { WriteBatch } from './write-batch';

/**
 * What a record's delete does to records elsewhere that name it (tasks unlinked, links removed, rows
 * of files that named it): as much as fits in the delete's own transaction, so no record is left
 * pointing at one that is gone however the process ends; the rest right after the commit. The
 * delete's `deleting` marker stays until `rest` has run, and the sweep that finishes deletes a
 * stopped process left half-way runs `rest` again (it reads what is left, so it is idempotent).
 */
export interface DeleteWork {
  /** Adds to the delete's transaction what fits (it may refuse the delete: throw); true when some is left for `rest`. */
  plan(record: StoredRecord, context: WriteContext, batch: WriteBatch): Promise<boolean>;
  /** Everything still left of this work for the deleted record, read again. */
  rest: DeleteFollowUp;
}

/**
 * Plans every work of a delete side by side (their reads run at once) and returns the ones with
 * something left after the commit. Called once per try of the delete: an abandoned try's plan is
 * never followed up.
 */
export async function planDeleteWork(works: readonly DeleteWork[], record: StoredRecord, context: WriteContext, batch: WriteBatch): Promise<DeleteWork[]> {
  const left = await Promise.all(works.map((work) => work.plan(record, context, batch)));
  return works.filter((_, index) => left[index]);
}

/** The follow-up of a committed delete: the `rest` of each work with something left. */
export function restOf(works: readonly DeleteWork[]): DeleteFollowUp {
  return async (organizationId, id) => {
    await Promise.all(works.map((work) => work.rest(organizationId, id)));
  };
}

/** A work with nothing in the delete's transaction: all of it follows the commit. */
export const afterCommit = (rest: DeleteFollowUp): DeleteWork => ({ plan: async () => true, rest });
