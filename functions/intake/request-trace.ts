import type { IntakeTokenRecord } from './intake-endpoint.repository';
import type { RejectionReason } from './intake-rejection';
import type { IntakeRequest } from './intake-request';
import { putItems, requestLogItem, type RequestOutcome } from './intake-request-log.repository';

/**
 * What happened to one request, for the endpoint's request log. The log entry is written once:
 * inside the lead's transaction when the use case can, otherwise by the handler at the end,
 * together with any completed replay records in one BatchWriteItem.
 */
export class RequestTrace {
  endpoint?: IntakeTokenRecord;
  outcome: RequestOutcome = 'rejected';
  reason: RejectionReason | 'honeypot' | null = null;
  leadId: string | null = null;
  created: boolean | null = null;
  duplicateOf: string | null = null;
  /** Items to write together with the log entry. */
  pending: Array<Record<string, unknown>> = [];
  private written = false;

  constructor(readonly request: IntakeRequest) {}

  /** The log entry as an item; marks it written (the caller puts it into its own write). */
  takeLogItem(status: number): Record<string, unknown> | undefined {
    if (this.written || !this.endpoint) return undefined;
    this.written = true;
    const { request } = this;
    return requestLogItem({
      intake_id: this.endpoint.intake_id,
      organization_id: this.endpoint.organization_id,
      received_at: new Date(request.receivedAt).toISOString(),
      method: request.method,
      address: request.address,
      source_ip: request.sourceIp,
      status,
      outcome: this.outcome,
      reason: this.reason,
      lead_id: this.leadId,
      created: this.created,
      duplicate_of: this.duplicateOf,
      content_type: loggedMediaType(request.contentType),
      body_bytes: request.body.length,
      duration_ms: Date.now() - request.receivedAt,
    });
  }

  /** The entry taken for a write that did not happen is written by `flush` instead. */
  resetLog(): void {
    this.written = false;
  }

  reject(reason: RejectionReason): void {
    this.outcome = 'rejected';
    this.reason = reason;
    this.leadId = null;
    this.created = null;
    this.duplicateOf = null;
    this.pending = [];
  }

  /** Writes whatever is still unwritten: the log entry and pending records. */
  async flush(status: number): Promise<void> {
    const items = [...this.pending];
    this.pending = [];
    const logItem = this.takeLogItem(status);
    if (logItem) items.push(logItem);
    if (items.length > 0) await putItems(items);
  }
}

/**
 * The media type of the request's Content-Type, lowercased, when it is one (`type/subtype` of token
 * characters, at most 100): the header is the sender's free text, which must not carry personal data
 * into the log (an address pasted there, say); anything else is logged as `unrecognized`.
 */
function loggedMediaType(contentType: string | undefined | null): string | null {
  if (!contentType) return null;
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  return mediaType.length <= 100 && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mediaType) ? mediaType : 'unrecognized';
}
