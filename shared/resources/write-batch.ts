import { concurrentChange } from '../http/errors';
import { getLogger } from '../logger';
import { VERSION_ATTRIBUTE, versionCondition } from '../http/record-version';
import { getTableName } from '../storage/dynamo-client';
import type { ItemKey } from '../storage/keys';
import { conflictBackoff, TransactionConditionFailed, transactWrite, type TransactItem } from '../storage/transactions';

/** A record changed between its read and the write (its version condition failed): read again and retry. */
export class VersionConflict extends Error {
  constructor() {
    super('The record changed since it was read');
  }
}

/**
 * The items of one DynamoDB transaction, each with the error its failed condition means (a unique
 * value taken → 409, a version moved → retry or 412, a parent gone → 404). Plans of several records
 * (a borrower and its new customer) join one batch and commit together, or not at all.
 */
export class WriteBatch {
  readonly items: TransactItem[] = [];
  private readonly meanings = new Map<number, () => Error>();
  private readonly followUps: Array<() => Promise<void>> = [];

  add(item: TransactItem, onConditionFailed?: () => Error): this {
    if (onConditionFailed) this.meanings.set(this.items.length, onConditionFailed);
    this.items.push(item);
    return this;
  }

  addAll(items: TransactItem[]): this {
    for (const item of items) this.add(item);
    return this;
  }

  /** The items of another batch, each with its meaning (or, given `meaning`, that one for every item that had one). */
  addBatch(other: WriteBatch, meaning?: () => Error): this {
    other.items.forEach((item, index) => this.add(item, other.meanings.has(index) ? (meaning ?? other.meanings.get(index)) : undefined));
    this.followUps.push(...other.followUps);
    return this;
  }

  /**
   * Work that follows the transaction once it has committed (what one transaction's 100 items
   * cannot hold). The write is accepted by then: a follow-up that fails is logged, not answered.
   */
  afterCommit(followUp: () => Promise<void>): this {
    this.followUps.push(followUp);
    return this;
  }

  /** The batch commits only while the item still exists (a record read and relied on, not written). */
  requireExists(key: ItemKey, onMissing: () => Error): this {
    return this.add({ ConditionCheck: { TableName: getTableName(), Key: key, ConditionExpression: 'attribute_exists(pk)' } }, onMissing);
  }

  /** The batch commits only while the item is still absent (a missing record relied on). */
  requireAbsent(key: ItemKey, onPresent: () => Error): this {
    return this.add({ ConditionCheck: { TableName: getTableName(), Key: key, ConditionExpression: 'attribute_not_exists(pk)' } }, onPresent);
  }

  /**
   * The record's move to its next version with `attributes` set, conditional on the version it was
   * read at (a concurrent write makes the caller read again); `fresh`: a record this request wrote
   * earlier, moved by one.
   */
  moveVersion(key: ItemKey, seen: number | 'fresh', attributes: Record<string, unknown> = {}): this {
    const fresh = seen === 'fresh';
    const condition = fresh ? { expression: 'attribute_exists(pk)', names: { '#version': 'version' }, values: {} } : versionCondition(seen);
    const names: Record<string, string> = { ...condition.names };
    const values: Record<string, unknown> = { ...condition.values, ...(fresh ? { ':one': 1 } : { ':next': seen + 1 }) };
    const sets = [fresh ? '#version = #version + :one' : '#version = :next'];
    Object.entries(attributes).forEach(([name, value], index) => {
      names[`#a${index}`] = name;
      values[`:a${index}`] = value;
      sets.push(`#a${index} = :a${index}`);
    });
    return this.add(
      {
        Update: {
          TableName: getTableName(),
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      () => new VersionConflict(),
    );
  }

  /** The batch commits only while the item is still at the version it was read at. */
  requireVersion(key: ItemKey, version: number, onChanged: () => Error): this {
    const { expression, names, values } = versionCondition(version);
    return this.add(
      {
        ConditionCheck: {
          TableName: getTableName(),
          Key: key,
          ConditionExpression: expression,
          ExpressionAttributeNames: names,
          ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
        },
      },
      onChanged,
    );
  }

  /**
   * Holds a record the write relies on (a customer or lead it links, a parent task): the item must
   * still exist (and, with `unchanged`, still have those attributes as read), and its version moves
   * (its ETag with it). A delete that read the record before this write commits then fails on its
   * version, reads again and sees this write: it answers its guard's 409, or takes the new link
   * along. Holds of one record by concurrent writes do not conflict with each other: they condition
   * on the attributes they copy or measure, never on the version another hold moves.
   */
  hold(key: ItemKey, onFailed: () => Error, unchanged: Record<string, unknown> = {}): this {
    const names: Record<string, string> = { '#version': VERSION_ATTRIBUTE };
    const values: Record<string, unknown> = { ':zero': 0, ':one': 1 };
    const conditions = ['attribute_exists(pk)'];
    Object.entries(unchanged).forEach(([name, value], index) => {
      names[`#u${index}`] = name;
      if (value === null || value === undefined) {
        values[':null'] = null;
        conditions.push(`(attribute_not_exists(#u${index}) OR #u${index} = :null)`);
      } else {
        values[`:u${index}`] = value;
        conditions.push(`#u${index} = :u${index}`);
      }
    });
    return this.add(
      {
        Update: {
          TableName: getTableName(),
          Key: key,
          UpdateExpression: 'SET #version = if_not_exists(#version, :zero) + :one',
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      onFailed,
    );
  }

  async commit(): Promise<void> {
    if (this.items.length === 0) return;
    try {
      await transactWrite(this.items);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      for (const index of error.failedIndexes) {
        const meaning = this.meanings.get(index);
        if (meaning) throw meaning();
      }
      throw error;
    }
    for (const followUp of this.followUps.splice(0)) {
      await followUp().catch((error: unknown) => getLogger().error('follow-up of a committed write failed', { error_name: (error as Error)?.name }));
    }
  }
}

/**
 * Runs a read-decide-write step again when its record moved under it (at most `attempts` times).
 * A record that keeps moving (many concurrent writers) is a retryable 500 with a JSON body, nothing written.
 */
export async function retryOnVersionConflict<T>(
  step: () => Promise<T>,
  { attempts = WRITE_ATTEMPTS, what = 'The record' }: { attempts?: number; what?: string } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (!(error instanceof VersionConflict)) throw error;
      if (attempt >= attempts) throw concurrentChange(what);
      await conflictBackoff(attempt);
    }
  }
}

/** Tries of a read-decide-write step whose record keeps moving under it, before a retryable 500. */
export const WRITE_ATTEMPTS = 10;

