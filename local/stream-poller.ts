import { DescribeTableCommand, GetItemCommand, PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { webhookKeys } from '../shared/storage/keys';
import type { Poller } from './queue-poller';

export interface StreamPollerOptions {
  endpoint: string;
  tableName: string;
  /** A client of its own, so the poller's bookkeeping is not counted as the service's round trips. */
  dynamoDb: DynamoDBClient;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  /** Like the event source mapping's batch size and maximum retry attempts. */
  batchSize?: number;
  maxRetries?: number;
  idleMs?: number;
  /** Report a record batch the handler gave up on (the local stand-in for the DLQ). */
  onDiscard?: (records: DynamoDBRecord[]) => void;
}

interface ShardState {
  iterator: string | undefined;
  /** The last sequence number handled and not yet written as the shard's checkpoint. */
  unsaved?: string;
  savedAt: number;
  /** Records the handler failed on, retried before reading further. */
  retry: DynamoDBRecord[];
  retries: number;
}

const CHECKPOINT_PK = 'LOCAL#STREAM';
const SHARD_REFRESH_MS = 5_000;
/**
 * A shard's checkpoint is written at most this often (and when the poller stops), not after every
 * batch: a restart after a hard kill reads at most this much again, which the fanout makes
 * harmless (deterministic delivery ids, conditional puts).
 */
const CHECKPOINT_INTERVAL_MS = 1_000;

/**
 * The local DynamoDB Streams event source: reads every shard of the table's stream and calls the
 * handler with `DynamoDBStreamEvent` batches, as Lambda does. On `batchItemFailures` it retries
 * from the failed record (bounded), and it keeps a checkpoint per shard so a restart of
 * `npm start` resumes where it stopped.
 */
export function startStreamPoller(options: StreamPollerOptions): Poller {
  const streams = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // A call DynamoDB Local leaves hanging must not stall the poller for good: it fails and the loop retries.
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 },
  });
  const shards = new Map<string, ShardState>();
  const finished = new Set<string>();
  let stopping = false;
  let streamArn = '';
  let wake: (() => void) | undefined;

  const checkpointKey = (shardId: string) => webhookKeys.streamCheckpoint(streamArn, shardId);

  const readCheckpoint = async (shardId: string): Promise<string | undefined> => {
    const key = checkpointKey(shardId);
    const found = await options.dynamoDb.send(
      new GetItemCommand({ TableName: options.tableName, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }),
    );
    return found.Item?.sequence_number?.S;
  };

  const writeCheckpoint = async (shardId: string, sequenceNumber: string) => {
    const key = checkpointKey(shardId);
    await options.dynamoDb.send(
      new PutItemCommand({
        TableName: options.tableName,
        Item: { pk: { S: key.pk }, sk: { S: key.sk }, entity: { S: 'stream_checkpoint' }, sequence_number: { S: sequenceNumber } },
      }),
    );
  };

  /** Set when a shard's iterator failed: the shards are read again at once. */
  let forceRefresh = false;

  const refreshShards = async () => {
    const found: Shard[] = [];
    let startShard: string | undefined;
    do {
      const page = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: startShard }));
      found.push(...(page.StreamDescription?.Shards ?? []));
      startShard = page.StreamDescription?.LastEvaluatedShardId;
    } while (startShard);
    for (const shard of found) {
      const shardId = shard.ShardId!;
      if (shards.has(shardId) || finished.has(shardId)) continue;
      const checkpoint = await readCheckpoint(shardId);
      if (checkpoint && checkpoint === shard.SequenceNumberRange?.EndingSequenceNumber) {
        finished.add(shardId);
        continue;
      }
      const fromOldest = () => streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'TRIM_HORIZON' }));
      const iterator = checkpoint
        ? await streams
            .send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: checkpoint }))
            // DynamoDB Local may trim a shard past the checkpoint: what is left is read from its oldest record.
            .catch((error: Error) => (error.name === 'TrimmedDataAccessException' ? fromOldest() : Promise.reject(error)))
        : await fromOldest();
      shards.set(shardId, { iterator: iterator.ShardIterator, retry: [], retries: 0, savedAt: Date.now() });
    }
  };

  /** Hands one batch to the handler; failed records are kept in `state.retry` (bounded retries). */
  const deliver = async (shardId: string, state: ShardState, records: DynamoDBRecord[]): Promise<void> => {
    let failedFrom = -1;
    try {
      const response = await options.handler({ Records: records });
      const failed = response?.batchItemFailures?.[0]?.itemIdentifier;
      if (failed !== undefined) failedFrom = Math.max(0, records.findIndex((record) => record.dynamodb?.SequenceNumber === failed));
    } catch {
      failedFrom = 0;
    }
    if (failedFrom >= 0) {
      state.retries += 1;
      if (state.retries <= (options.maxRetries ?? 3)) {
        state.retry = records.slice(failedFrom);
        return;
      }
      options.onDiscard?.(records.slice(failedFrom));
    }
    state.retry = [];
    state.retries = 0;
    const last = records[records.length - 1]?.dynamodb?.SequenceNumber;
    if (last) state.unsaved = last;
    await saveCheckpoint(shardId, state);
  };

  /** Writes the shard's checkpoint when one is due (`force`: now, as the poller stops). */
  const saveCheckpoint = async (shardId: string, state: ShardState, force = false) => {
    if (!state.unsaved || (!force && Date.now() - state.savedAt < CHECKPOINT_INTERVAL_MS)) return;
    const sequenceNumber = state.unsaved;
    state.savedAt = Date.now();
    await writeCheckpoint(shardId, sequenceNumber);
    if (state.unsaved === sequenceNumber) state.unsaved = undefined;
  };

  /**
   * Hands the records to the handler, without the poller's own checkpoint writes (they exist only
   * locally; a Lambda never sees them).
   */
  const handOver = async (shardId: string, state: ShardState, records: DynamoDBRecord[]): Promise<void> => {
    const meaningful = records.filter((record) => record.dynamodb?.Keys?.pk?.S !== CHECKPOINT_PK);
    if (meaningful.length > 0) return deliver(shardId, state, meaningful);
    const last = records[records.length - 1]?.dynamodb?.SequenceNumber;
    // Only checkpoint records: remembered, never written on their own (that would echo forever).
    if (last && state.unsaved) state.unsaved = last;
  };

  const pollShard = async (shardId: string, state: ShardState): Promise<boolean> => {
    if (state.retry.length > 0) {
      await new Promise((resolve) => setTimeout(resolve, 100 * state.retries));
      await deliver(shardId, state, state.retry);
      return true;
    }
    if (!state.iterator) {
      await saveCheckpoint(shardId, state, true);
      shards.delete(shardId);
      finished.add(shardId);
      return false;
    }
    let result;
    try {
      result = await streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: options.batchSize ?? 100 }));
    } catch (error) {
      // An iterator that failed once (expired, timed out, refused) is never retried as it is: the
      // shard is picked up again from its checkpoint at the next refresh, so the poller cannot stall.
      shards.delete(shardId);
      forceRefresh = true;
      throw error;
    }
    state.iterator = result.NextShardIterator;
    const records = (result.Records ?? []).map((record) => toLambdaRecord(record, streamArn));
    if (records.length === 0) {
      await saveCheckpoint(shardId, state);
      return false;
    }
    await handOver(shardId, state, records);
    return true;
  };

  const loop = async () => {
    let lastRefresh = 0;
    while (!stopping) {
      try {
        if (!streamArn) {
          const table = await options.dynamoDb.send(new DescribeTableCommand({ TableName: options.tableName }));
          streamArn = table.Table?.LatestStreamArn ?? '';
          if (!streamArn) throw new Error(`table ${options.tableName} has no stream`);
        }
        if (forceRefresh || Date.now() - lastRefresh > SHARD_REFRESH_MS) {
          forceRefresh = false;
          await refreshShards();
          lastRefresh = Date.now();
        }
        let busy = false;
        for (const [shardId, state] of [...shards]) {
          if (stopping) break;
          busy = (await pollShard(shardId, state)) || busy;
        }
        // Records keep coming: read again at once. Idle: a short pause.
        if (!busy) await sleep(options.idleMs ?? 100);
      } catch {
        if (!stopping) await sleep(500);
      }
    }
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const running = loop();
  return {
    stop: async () => {
      stopping = true;
      wake?.();
      await running;
      for (const [shardId, state] of shards) await saveCheckpoint(shardId, state, true).catch(() => undefined);
      streams.destroy();
    },
  };
}

/**
 * The Streams API record in the shape Lambda delivers it. DynamoDB Local stamps records only to
 * the minute where Lambda gets whole seconds: within that minute, the second the record was read
 * stands in for it.
 */
type Image = Record<string, unknown>;

/**
 * DynamoDB Local writes an empty map as `{}` in stream images (DynamoDB and Lambda send
 * `{"M": {}}`); put the type back, at any depth.
 */
function repairImage(image: Image | undefined): Image | undefined {
  if (!image) return image;
  const repairValue = (value: unknown): unknown => {
    if (!value || typeof value !== 'object') return value;
    const attribute = value as Record<string, unknown>;
    if (Object.keys(attribute).length === 0) return { M: {} };
    if (attribute.M && typeof attribute.M === 'object') return { M: repairImage(attribute.M as Image) };
    if (Array.isArray(attribute.L)) return { L: attribute.L.map(repairValue) };
    return attribute;
  };
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, repairValue(value)]));
}

export function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const dynamodb = record.dynamodb ?? {};
  const now = Date.now();
  const stamped = dynamodb.ApproximateCreationDateTime?.getTime() ?? now;
  const minuteOnly = stamped % 60_000 === 0;
  const seconds = Math.floor((minuteOnly ? Math.min(now, stamped + 59_999) : stamped) / 1000);
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: seconds,
      Keys: dynamodb.Keys as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      NewImage: repairImage(dynamodb.NewImage as Image | undefined) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
      OldImage: repairImage(dynamodb.OldImage as Image | undefined) as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'],
      SequenceNumber: dynamodb.SequenceNumber,
      SizeBytes: dynamodb.SizeBytes,
      StreamViewType: dynamodb.StreamViewType as NonNullable<DynamoDBRecord['dynamodb']>['StreamViewType'],
    },
  };
}
