import type { AttributeValue as LambdaAttributeValue, DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

export type Item = Record<string, unknown>;

/** One stream record with its images unmarshalled: what the pure event rules read. */
export interface StreamChange {
  /** The stream record's `eventID`: unique per record, the seed of deterministic event ids. */
  recordId: string;
  kind: 'created' | 'updated' | 'deleted';
  before?: Item;
  after?: Item;
  /** ApproximateCreationDateTime: whole seconds at best. */
  recordedAt: Date;
  /** A delete's exact time, from its `deleting` marker (see `deletionOf`). */
  deletedAt?: string;
}

/**
 * The delete a `deleting` marker's insert stands for: the record as it was, at the delete's exact
 * time (`entityKeys.deletionMarker`). Undefined for every other change.
 */
export function deletionOf(change: StreamChange): StreamChange | undefined {
  const marker = change.kind === 'created' ? change.after : undefined;
  const record = marker?.deleted_record;
  const at = marker?.deleted_at;
  if (!record || typeof record !== 'object' || Array.isArray(record) || typeof at !== 'string') return undefined;
  return { recordId: change.recordId, kind: 'deleted', before: record as Item, recordedAt: change.recordedAt, deletedAt: at };
}

const KINDS = { INSERT: 'created', MODIFY: 'updated', REMOVE: 'deleted' } as const;

/**
 * The image as plain values. An attribute that cannot be read (a number beyond JavaScript's
 * precision, a malformed value) is left out rather than failing the record: no event rule reads
 * such attributes, and a record that always fails would hold up its whole shard.
 */
function image(value: { [key: string]: LambdaAttributeValue } | undefined): Item | undefined {
  if (!value) return undefined;
  const attributes = value as Record<string, AttributeValue>;
  try {
    return unmarshall(attributes);
  } catch {
    const item: Item = {};
    for (const [name, attribute] of Object.entries(attributes)) {
      try {
        Object.assign(item, unmarshall({ [name]: attribute }));
      } catch {
        // left out
      }
    }
    return item;
  }
}

/** A Lambda DynamoDB stream record as a change; undefined for records without a known event name. */
export function streamChangeFromRecord(record: DynamoDBRecord): StreamChange | undefined {
  const kind = record.eventName ? KINDS[record.eventName] : undefined;
  if (!kind || !record.eventID) return undefined;
  const seconds = record.dynamodb?.ApproximateCreationDateTime;
  return {
    recordId: record.eventID,
    kind,
    before: image(record.dynamodb?.OldImage),
    after: image(record.dynamodb?.NewImage),
    recordedAt: typeof seconds === 'number' ? new Date(seconds * 1000) : new Date(),
  };
}
