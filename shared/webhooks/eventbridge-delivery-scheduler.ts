import { ConflictException, CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { scheduleNameFor, type DeliveryScheduler } from './delivery-scheduler';
import type { DeliveryWake } from './webhook-delivery.repository';

export interface EventBridgeSchedulerSettings {
  groupName: string;
  /** The role EventBridge Scheduler assumes to send to the target. */
  roleArn: string;
  /** The delivery queue: the schedule sends the wake message to it. */
  targetArn: string;
}

/** `at(...)` takes whole seconds in UTC; rounding up means a wake never arrives early. */
export function atExpression(at: Date): string {
  const rounded = new Date(Math.ceil(at.getTime() / 1000) * 1000);
  return `at(${rounded.toISOString().slice(0, 19)})`;
}

/** One-time EventBridge Scheduler schedules that send the wake message to the delivery queue and then delete themselves. */
export class EventBridgeDeliveryScheduler implements DeliveryScheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly settings: EventBridgeSchedulerSettings,
  ) {}

  async scheduleWake(wake: DeliveryWake, at: Date): Promise<void> {
    try {
      await this.client.send(
        new CreateScheduleCommand({
          Name: scheduleNameFor(wake),
          GroupName: this.settings.groupName,
          ScheduleExpression: atExpression(at),
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: {
            Arn: this.settings.targetArn,
            RoleArn: this.settings.roleArn,
            Input: JSON.stringify(wake),
            RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
          },
        }),
      );
    } catch (error) {
      // The same attempt was scheduled already (a retried worker): nothing more to do.
      if (error instanceof ConflictException) return;
      throw error;
    }
  }
}
