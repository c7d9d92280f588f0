import { ConflictException, CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { oneTimeSchedule, type ScheduleTarget } from '../one-time-schedule';
import { scheduleNameFor, type DeliveryScheduler } from './delivery-scheduler';
import type { DeliveryWake } from './webhook-delivery.repository';

/** The delivery queue's settings: the schedule sends the wake message to it (`targetArn`). */
export type EventBridgeSchedulerSettings = ScheduleTarget;

/** One-time EventBridge Scheduler schedules that send the wake message to the delivery queue and then delete themselves. */
export class EventBridgeDeliveryScheduler implements DeliveryScheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly settings: EventBridgeSchedulerSettings,
  ) {}

  async scheduleWake(wake: DeliveryWake, at: Date): Promise<void> {
    try {
      await this.client.send(new CreateScheduleCommand(oneTimeSchedule(scheduleNameFor(wake), at, this.settings, wake)));
    } catch (error) {
      // The same attempt was scheduled already (a retried worker): nothing more to do.
      if (error instanceof ConflictException) return;
      throw error;
    }
  }
}
