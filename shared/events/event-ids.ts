import { v5 as uuidv5 } from 'uuid';

/** Fixed namespace of this service's name-based ids. */
const NAMESPACE = '5a0f4f6e-1d2b-5c8e-9a41-6b7c2d9e0f13';

/**
 * Event ids are name-based (UUIDv5) on the stream record and the event type: the same record
 * always gives the same id, so a retried fanout cannot mint a second event.
 */
export function eventIdFor(recordId: string, type: string): string {
  return uuidv5(`event:${recordId}:${type}`, NAMESPACE);
}

/** One delivery per event and endpoint: its id is what makes the fanout's conditional put idempotent. */
export function deliveryIdFor(recordId: string, type: string, endpointId: string): string {
  return uuidv5(`delivery:${recordId}:${type}:${endpointId}`, NAMESPACE);
}
