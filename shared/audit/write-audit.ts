import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { newId } from '../ids';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { expiresInDays, keys } from '../storage/keys';
import type { TransactItem } from '../storage/transactions';

export const WRITE_LOG_RETENTION_DAYS = 90;

/**
 * The write log of spec §5: key, endpoint, affected record, status and duration, never bodies.
 * A domain write that ends in a transaction adds the entry to it (no extra round trip); any other
 * successful write is logged by the pipeline afterwards.
 */
export class WriteAudit {
  private recorded = false;
  private readonly startedAt = Date.now();

  constructor(
    private readonly organizationId: string,
    private readonly keyId: string,
    private readonly endpoint: string,
  ) {}

  get isRecorded(): boolean {
    return this.recorded;
  }

  /** The log entry as a transaction item, for writes whose success is decided by that transaction. */
  entry(recordId: string | undefined, status: number): TransactItem {
    this.recorded = true;
    return { Put: { TableName: getTableName(), Item: this.item(recordId, status) } };
  }

  async record(recordId: string | undefined, status: number): Promise<void> {
    this.recorded = true;
    await getDocumentClient().send(new PutCommand({ TableName: getTableName(), Item: this.item(recordId, status) }));
  }

  private item(recordId: string | undefined, status: number): Record<string, unknown> {
    const at = new Date().toISOString();
    const id = newId();
    return {
      ...keys.writeLog(this.organizationId, at, id),
      entity: 'write_log',
      id,
      organization_id: this.organizationId,
      key_id: this.keyId,
      endpoint: this.endpoint,
      record_id: recordId ?? null,
      status,
      duration_ms: Date.now() - this.startedAt,
      created_at: at,
      expires_at: expiresInDays(WRITE_LOG_RETENTION_DAYS),
    };
  }
}
