import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient } from './dynamo-client';
import { TRANSACTION_ITEMS_MAX, TransactionTooLarge } from './transaction-limit';


export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Thrown when a condition inside a transaction failed. `failedIndexes` lists the positions of the
 * items whose condition failed, so the domain can say which invariant was broken.
 */
export class TransactionConditionFailed extends Error {
  constructor(readonly failedIndexes: number[]) {
    super('Transaction condition failed');
  }
}

const CONFLICT_RETRIES = 4;

/**
 * The pause before trying a contended write again (`attempt` counts from 1): full jitter over an
 * exponential window (at most 20, 40, 80, ... ms, capped at 640 ms; about 3 s over ten tries), so
 * concurrent writers of one item spread out instead of colliding again at once.
 */
export function conflictBackoff(attempt: number): Promise<void> {
  const window = Math.min(640, 20 * 2 ** (attempt - 1));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * window));
}

/**
 * Writes the items in one TransactWriteItems call. Concurrent transactions on the same counter item
 * are cancelled by DynamoDB with `TransactionConflict`; those are retried with jittered backoff.
 */
export async function transactWrite(items: TransactItem[]): Promise<void> {
  // DynamoDB refuses a larger transaction with a ValidationException; the paths that can grow that
  // far split their work before they get here, and anything left is the client's 409, never a 500.
  if (items.length > TRANSACTION_ITEMS_MAX) throw new TransactionTooLarge(items.length);
  for (let attempt = 0; ; attempt++) {
    try {
      await getDocumentClient().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const failed = reasons.flatMap((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? [index] : []));
      if (failed.length > 0) throw new TransactionConditionFailed(failed);
      const conflict = reasons.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflict || attempt >= CONFLICT_RETRIES) throw error;
      await conflictBackoff(attempt + 1);
    }
  }
}
