import type { DeliveryWake } from './webhook-delivery.repository';

/**
 * Wakes a delivery at a time further away than SQS can delay a message. Two adapters: EventBridge
 * Scheduler in AWS, a DynamoDB-backed poller locally (SCHEDULER_MODE).
 */
export interface DeliveryScheduler {
  scheduleWake(wake: DeliveryWake, at: Date): Promise<void>;
}

/** A stable name per delivery attempt, so scheduling the same wake twice is harmless. */
export function scheduleNameFor(wake: DeliveryWake): string {
  return `delivery-${wake.delivery_id}-${wake.attempt ?? 0}`;
}
