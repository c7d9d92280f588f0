import { getLogger } from '../../shared/logger';
import { deliveryWakeSchema, enqueueWakes } from '../../shared/webhooks/delivery-queue';

/**
 * Target for EventBridge Scheduler one-time schedules that invoke a function rather than send to
 * the delivery queue directly: the schedule's input is a delivery wake, put on the queue as is.
 * Throwing lets the scheduler retry (its retry policy and DLQ apply).
 */
export const handler = async (event: unknown): Promise<void> => {
  const wake = deliveryWakeSchema.safeParse(event);
  if (!wake.success) {
    getLogger().warn('scheduled payload is not a delivery wake; dropped');
    return;
  }
  await enqueueWakes([wake.data]);
};
