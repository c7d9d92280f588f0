import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A scope in which DynamoDB writes are refused: work done before the request is known to be
 * allowed (the API's speculative read, `shared/http/api-handler.ts`) may read, never write. The
 * DocumentClient throws `WriteRefusedInReadOnlyScope` before a write command leaves the process.
 */
const scope = new AsyncLocalStorage<true>();

const WRITE_COMMANDS = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand', 'ExecuteStatementCommand', 'BatchExecuteStatementCommand', 'ExecuteTransactionCommand']);

export class WriteRefusedInReadOnlyScope extends Error {
  constructor(commandName: string) {
    super(`${commandName} refused: the request is not authenticated yet`);
    this.name = 'WriteRefusedInReadOnlyScope';
  }
}

export function runReadOnly<T>(work: () => Promise<T>): Promise<T> {
  return scope.run(true, work);
}

/** Called by the DynamoDB client for every command. */
export function assertWritable(commandName: string): void {
  if (scope.getStore() && WRITE_COMMANDS.has(commandName)) throw new WriteRefusedInReadOnlyScope(commandName);
}
