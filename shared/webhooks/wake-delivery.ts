import { perSchedulerMode } from '../one-time-schedule';
import { enqueueWakes, MAX_QUEUE_DELAY_SECONDS } from './delivery-queue';
import type { DeliveryScheduler } from './delivery-scheduler';
import { EventBridgeDeliveryScheduler } from './eventbridge-delivery-scheduler';
import { LocalDeliveryScheduler } from './local-delivery-scheduler';
import type { DeliveryWake } from './webhook-delivery.repository';

/** The scheduler adapter SCHEDULER_MODE names. */
const deliveryScheduler = perSchedulerMode<DeliveryScheduler>(
  { groupName: 'SCHEDULER_GROUP_NAME', roleArn: 'SCHEDULER_ROLE_ARN', targetArn: 'SCHEDULER_TARGET_ARN' },
  () => new LocalDeliveryScheduler(),
  (client, target) => new EventBridgeDeliveryScheduler(client, target),
);

export const getDeliveryScheduler = (): DeliveryScheduler => deliveryScheduler.get();
export const resetDeliveryScheduler = (): void => deliveryScheduler.reset();

/** Wakes the delivery at `at`: SQS DelaySeconds up to 15 minutes, the scheduler beyond. */
export async function wakeDeliveryAt(wake: DeliveryWake, at: Date, now = Date.now()): Promise<void> {
  const delaySeconds = Math.ceil((at.getTime() - now) / 1000);
  if (delaySeconds <= MAX_QUEUE_DELAY_SECONDS) {
    await enqueueWakes([wake], Math.max(0, delaySeconds));
    return;
  }
  await getDeliveryScheduler().scheduleWake(wake, at);
}
