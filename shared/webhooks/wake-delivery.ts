import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { configGeneration, getConfig } from '../config';
import { enqueueWakes, MAX_QUEUE_DELAY_SECONDS } from './delivery-queue';
import type { DeliveryScheduler } from './delivery-scheduler';
import { EventBridgeDeliveryScheduler } from './eventbridge-delivery-scheduler';
import { LocalDeliveryScheduler } from './local-delivery-scheduler';
import type { DeliveryWake } from './webhook-delivery.repository';

let scheduler: DeliveryScheduler | undefined;
let builtForGeneration = -1;

/** The scheduler adapter SCHEDULER_MODE names. */
export function getDeliveryScheduler(): DeliveryScheduler {
  if (!scheduler || builtForGeneration !== configGeneration()) {
    builtForGeneration = configGeneration();
    const config = getConfig();
    if (config.SCHEDULER_MODE === 'local') {
      scheduler = new LocalDeliveryScheduler();
    } else {
      const { SCHEDULER_GROUP_NAME, SCHEDULER_ROLE_ARN, SCHEDULER_TARGET_ARN } = config;
      if (!SCHEDULER_GROUP_NAME || !SCHEDULER_ROLE_ARN || !SCHEDULER_TARGET_ARN) {
        throw new Error('SCHEDULER_GROUP_NAME, SCHEDULER_ROLE_ARN and SCHEDULER_TARGET_ARN must be configured');
      }
      scheduler = new EventBridgeDeliveryScheduler(new SchedulerClient({ region: config.AWS_REGION }), {
        groupName: SCHEDULER_GROUP_NAME,
        roleArn: SCHEDULER_ROLE_ARN,
        targetArn: SCHEDULER_TARGET_ARN,
      });
    }
  }
  return scheduler;
}

export function resetDeliveryScheduler(): void {
  scheduler = undefined;
}

/** Wakes the delivery at `at`: SQS DelaySeconds up to 15 minutes, the scheduler beyond. */
export async function wakeDeliveryAt(wake: DeliveryWake, at: Date, now = Date.now()): Promise<void> {
  const delaySeconds = Math.ceil((at.getTime() - now) / 1000);
  if (delaySeconds <= MAX_QUEUE_DELAY_SECONDS) {
    await enqueueWakes([wake], Math.max(0, delaySeconds));
    return;
  }
  await getDeliveryScheduler().scheduleWake(wake, at);
}
