/** The most items one TransactWriteItems takes (DynamoDB's limit). */
export const TRANSACTION_ITEMS_MAX = 100;

/** A write whose records do not fit one transaction: nothing was written. Kept apart from the client, so the error policy can name it without loading the SDK. */
export class TransactionTooLarge extends Error {
  constructor(readonly itemCount: number) {
    super(`A transaction of ${itemCount} items`);
  }
}
