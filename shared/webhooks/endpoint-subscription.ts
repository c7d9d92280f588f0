import { getTableName } from '../storage/dynamo-client';
import { listEndpoints, WEBHOOK_ENDPOINT_ENTITY, type WebhookEndpoint } from './webhook-endpoint.repository';

/** What decides whether an endpoint gets an event: its type and when it happened. */
export interface EventOccurrence {
  type: string;
  occurredAt: string;
  /** False when `occurredAt` is only the stream's approximate (whole-second) time. */
  occurredAtIsExact: boolean;
}

/**
 * Spec §3: an endpoint gets only the events it subscribes to that happen while it is active, after
 * it became active, to the millisecond (a delete's time comes from its `deleting` marker). A time
 * known only to the second (a delivery stored before deletes carried their time) counts as after
 * when it falls in the same second. The fanout asks this of its (cached) endpoint list; the
 * delivery worker asks it again of the endpoint read consistently at attempt time, so a stale list
 * can never send an event to an endpoint that was disabled, deleted or unsubscribed before it.
 */
export function endpointWantsEvent(endpoint: WebhookEndpoint, event: EventOccurrence): boolean {
  if (!endpoint.is_active || !(endpoint.events as string[]).includes(event.type)) return false;
  const occurred = Date.parse(event.occurredAt);
  const activated = Date.parse(endpoint.activated_at);
  return event.occurredAtIsExact ? occurred > activated : Math.floor(occurred / 1000) >= Math.floor(activated / 1000);
}

/** How long the fanout trusts an organization's endpoint list before reading it again. */
export const ENDPOINT_LIST_TTL_MS = 3_000;

interface Entry {
  endpoints: Promise<WebhookEndpoint[]>;
  readAt: number;
}

/**
 * The organizations' endpoint lists, kept by the fanout across invocations (a warm Lambda, the
 * local process) for at most `ttlMs`, and dropped at once when the stream shows a change of one of
 * the organization's endpoints. So a new or changed endpoint is seen within `ttlMs` at worst (at
 * once when its write reaches the fanout before the event's); the list is only a first filter:
 * the delivery worker checks every event delivery against the endpoint as it is when it sends.
 */
export class EndpointListCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = ENDPOINT_LIST_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private key(organizationId: string): string {
    return `${getTableName()}|${organizationId}`;
  }

  get(organizationId: string): Promise<WebhookEndpoint[]> {
    const key = this.key(organizationId);
    const cached = this.entries.get(key);
    if (cached && this.now() - cached.readAt < this.ttlMs) return cached.endpoints;
    const entry: Entry = { endpoints: listEndpoints(organizationId), readAt: this.now() };
    this.entries.set(key, entry);
    entry.endpoints.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    // Bounded: expired entries go when the map grows.
    if (this.entries.size > 1_000) {
      for (const [other, value] of this.entries) if (this.now() - value.readAt >= this.ttlMs) this.entries.delete(other);
    }
    return entry.endpoints;
  }

  forget(organizationId: string): void {
    this.entries.delete(this.key(organizationId));
  }

  /** Drops the organization's list when `item` (a stream image) is one of its endpoints. */
  forgetIfEndpoint(item: Record<string, unknown> | undefined): void {
    if (item?.entity === WEBHOOK_ENDPOINT_ENTITY && typeof item.organization_id === 'string') this.forget(item.organization_id);
  }
}
