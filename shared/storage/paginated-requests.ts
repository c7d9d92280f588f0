import { BatchGetCommand, BatchWriteCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, getTableName } from './dynamo-client';
import type { ItemKey } from './keys';
import type { TransactItem } from './transactions';

export type Item = Record<string, unknown>;

/** Every item a Query matches, following LastEvaluatedKey page by page. */
export async function queryAll(input: QueryCommandInput): Promise<Item[]> {
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await getDocumentClient().send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The number of items a Query matches (Select COUNT, page by page: nothing is returned). */
export async function countAll(input: QueryCommandInput): Promise<number> {
  let count = 0;
  let startKey: Item | undefined;
  do {
    const page = await getDocumentClient().send(new QueryCommand({ ...input, Select: 'COUNT', ExclusiveStartKey: startKey }));
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}

/**
 * One page of a Query for offset paging: the first `offset` items are skipped reading keys only
 * (`keyAttributes`: the table's and the index's key names), then up to `limit` whole items are read.
 */
export async function queryOffsetPage(input: QueryCommandInput, keyAttributes: string[], offset: number, limit: number): Promise<Item[]> {
  const client = getDocumentClient();
  let startKey: Item | undefined;
  let toSkip = offset;
  const names = Object.fromEntries(keyAttributes.map((name, index) => [`#k${index}`, name]));
  while (toSkip > 0) {
    const skipped = await client.send(
      new QueryCommand({
        ...input,
        ProjectionExpression: Object.keys(names).join(', '),
        ExpressionAttributeNames: { ...input.ExpressionAttributeNames, ...names },
        Limit: Math.min(toSkip, 10_000),
        ExclusiveStartKey: startKey,
      }),
    );
    toSkip -= skipped.Items?.length ?? 0;
    startKey = skipped.LastEvaluatedKey;
    if (!startKey) return [];
  }
  const items: Item[] = [];
  while (items.length < limit) {
    const page = await client.send(new QueryCommand({ ...input, Limit: limit - items.length, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
    if (!startKey) break;
  }
  return items;
}

const RETRIES = 6;

/**
 * The pause before asking again for what a batch call left unprocessed (`attempt` from 1). DynamoDB
 * leaves items unprocessed when it throttles, so the next call waits: full jitter over 50, 100, 200,
 * ... ms (about 1.5 s at most over the tries), as AWS advises for batch operations.
 */
export function unprocessedBackoff(attempt: number): Promise<void> {
  const window = 50 * 2 ** (attempt - 1);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * window));
}

/** Items for the keys (BatchGetItem, 100 keys a call, unprocessed keys retried); in no particular order. */
export async function batchGetAll(itemKeys: ItemKey[], options: { consistentRead?: boolean; projection?: string } = {}): Promise<Item[]> {
  const tableName = getTableName();
  const found: Item[] = [];
  for (let start = 0; start < itemKeys.length; start += 100) {
    let pending: Item[] = itemKeys.slice(start, start + 100);
    for (let attempt = 0; pending.length > 0 && attempt < RETRIES; attempt++) {
      if (attempt > 0) await unprocessedBackoff(attempt);
      const result = await getDocumentClient().send(
        new BatchGetCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: options.consistentRead, ProjectionExpression: options.projection } } }),
      );
      found.push(...(result.Responses?.[tableName] ?? []));
      pending = (result.UnprocessedKeys?.[tableName]?.Keys as Item[] | undefined) ?? [];
    }
    if (pending.length > 0) throw new Error('BatchGetItem left keys unprocessed');
  }
  return found;
}

type WriteRequest = { PutRequest: { Item: Item } } | { DeleteRequest: { Key: Item } };

/** Puts and deletes (BatchWriteItem, 25 a call, unprocessed requests retried). Not atomic. */
export async function batchWriteAll(requests: WriteRequest[]): Promise<void> {
  const tableName = getTableName();
  for (let start = 0; start < requests.length; start += 25) {
    let pending = requests.slice(start, start + 25);
    for (let attempt = 0; pending.length > 0 && attempt < RETRIES; attempt++) {
      if (attempt > 0) await unprocessedBackoff(attempt);
      const result = await getDocumentClient().send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
      pending = (result.UnprocessedItems?.[tableName] as WriteRequest[] | undefined) ?? [];
    }
    if (pending.length > 0) throw new Error('BatchWriteItem left requests unprocessed');
  }
}

export const itemKeyOf = (item: Item): ItemKey => ({ pk: item.pk as string, sk: item.sk as string });

/** The item with this key among those a read returned (BatchGetItem answers in no particular order). */
export const itemWithKey = (items: Item[], key: ItemKey): Item | undefined => items.find((item) => item.pk === key.pk && item.sk === key.sk);

/** The deletes a transaction would make (`{Delete: ...}` items), made outside one, 25 a request. */
export async function batchDeleteAll(deletes: TransactItem[]): Promise<void> {
  await batchWriteAll(deletes.map((item) => ({ DeleteRequest: { Key: item.Delete!.Key as Record<string, unknown> } })));
}
