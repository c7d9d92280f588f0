import { getLogger } from '../logger';
import { getTableName } from '../storage/dynamo-client';
import { DELETING_SHARDS, entityKeys } from '../storage/keys';
import { queryAll } from '../storage/paginated-requests';
import { completeDelete } from './entity.repository';

/** An entity's follow-up after its record's delete, given only the record's organization and id. */
export type DeleteFollowUp = (organizationId: string, id: string) => Promise<void>;

/** A delete still marked this long after it was committed is taken as stopped half-way. */
export const UNFINISHED_DELETE_GRACE_MS = 60_000;

/**
 * A record's delete commits the record's removal and a `deleting` marker in one transaction; what
 * follows (the rows of its partition, its tasks, its links elsewhere) runs right after it and
 * removes the marker last. A process stopped in between leaves the marker, in gsi4 by the time of
 * the delete: this sweep finishes every such delete older than `graceMs`, with the same
 * idempotent steps (`completeDelete`) and the entity's `followUps` entry. Returns how many it
 * finished; one that fails stays marked for the next sweep.
 */
export async function finishUnfinishedDeletes(followUps: Record<string, DeleteFollowUp>, graceMs = UNFINISHED_DELETE_GRACE_MS, now = Date.now()): Promise<number> {
  return finishMarked(entityKeys.deletingShard, graceMs, now, 'delete', (record) => {
    const followUp = followUps[record.type];
    return completeDelete(record.type, record.organizationId, record.id, { rows: true, followUp: followUp && (() => followUp(record.organizationId, record.id)) });
  });
}

/**
 * Finishes the work of every marker of `shard` older than `graceMs` (`finish`, idempotent, given
 * the marked record and the marker's time). Returns how many it finished; one that fails stays
 * marked for the next sweep.
 */
export async function finishMarked(
  shard: (index: number) => string,
  graceMs: number,
  now: number,
  what: string,
  finish: (record: { type: string; organizationId: string; id: string }, at: string) => Promise<void>,
): Promise<number> {
  let finished = 0;
  for (const marker of await markersOlderThan(shard, graceMs, now)) {
    const record = entityKeys.recordOfPartition(marker.pk);
    if (!record) continue;
    try {
      await finish(record, marker.gsi4sk.slice(0, marker.gsi4sk.lastIndexOf('#')));
      finished += 1;
    } catch (error) {
      getLogger().warn(`unfinished ${what} not finished; the next sweep tries again`, { type: record.type, errorName: (error as Error)?.name });
    }
  }
  return finished;
}

/**
 * Markers of work that follows a commit (a delete's, a rename's), put in gsi4 under `shard(0..3)`
 * by the time of the write, written longer than `graceMs` ago: what a stopped or failed process
 * left unfinished. Their partition key and index sort key (`<time>#<id>`).
 */
async function markersOlderThan(shard: (index: number) => string, graceMs: number, now: number): Promise<Array<{ pk: string; gsi4sk: string }>> {
  // '$' sorts after the '#' separator of `<time>#<id>`.
  const bound = `${new Date(now - graceMs).toISOString()}$`;
  const pages = await Promise.all(
    Array.from({ length: DELETING_SHARDS }, (_, index) =>
      queryAll({
        TableName: getTableName(),
        IndexName: 'gsi4',
        KeyConditionExpression: 'gsi4pk = :pk AND gsi4sk < :bound',
        ExpressionAttributeValues: { ':pk': shard(index), ':bound': bound },
        ProjectionExpression: 'pk, gsi4sk',
      }),
    ),
  );
  return pages.flat() as Array<{ pk: string; gsi4sk: string }>;
}
