import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
  type CreateScheduleCommandInput,
} from '@aws-sdk/client-scheduler';
import { oneTimeSchedule, perSchedulerMode, type ScheduleTarget } from '../one-time-schedule';
import { fireReminder, type ReminderTarget } from './fire-reminder';

/**
 * Arms and disarms file reminders (resources.md §9.2). The due state lives in the reminder item
 * itself (status `scheduled` + the sparse due index), committed with the API write; the scheduler
 * only makes it fire on time. Two adapters, chosen by SCHEDULER_MODE like the webhook retries':
 * EventBridge Scheduler one-time schedules in AWS, nothing at all locally (the local poller reads
 * the due index every second, which is also what makes a hard kill lose nothing).
 */
export interface ReminderScheduler {
  /** The reminder is (again) scheduled for `target.remind_at`: create or move its one schedule. */
  arm(target: ReminderTarget, change: 'created' | 'moved'): Promise<void>;
  /** The reminder was cancelled, sent or deleted: its schedule goes (a missing one is fine). */
  disarm(target: Pick<ReminderTarget, 'reminder_id'>): Promise<void>;
}

/** One schedule per reminder, moved with it: `reminder-<uuid>` (45 characters of the allowed 64). */
export const reminderScheduleName = (reminderId: string) => `reminder-${reminderId}`;

/** The scheduler-target function's settings: the schedule invokes it (`targetArn`). */
export type EventBridgeReminderSettings = ScheduleTarget;

/** What a reminder's schedule sends to the scheduler-target function. */
export const reminderScheduleInput = (target: ReminderTarget) => ({ kind: 'reminder' as const, ...target });

export class EventBridgeReminderScheduler implements ReminderScheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly settings: EventBridgeReminderSettings,
    private readonly now: () => number = Date.now,
  ) {}

  private definition(target: ReminderTarget): CreateScheduleCommandInput {
    return oneTimeSchedule(reminderScheduleName(target.reminder_id), new Date(target.remind_at), this.settings, reminderScheduleInput(target));
  }

  async arm(target: ReminderTarget, change: 'created' | 'moved'): Promise<void> {
    // A time in the past fires at once (resources.md §9.2): no schedule, the reminder fires now.
    if (Date.parse(target.remind_at) <= this.now()) {
      if (change === 'moved') await this.disarm(target);
      await fireReminder(target);
      return;
    }
    const definition = this.definition(target);
    if (change === 'created') {
      try {
        await this.client.send(new CreateScheduleCommand(definition));
        return;
      } catch (error) {
        // A retried request created it already: move it to this arming.
        if (!(error instanceof ConflictException)) throw error;
      }
    }
    try {
      await this.client.send(new UpdateScheduleCommand(definition));
    } catch (error) {
      // The schedule ran and deleted itself (a sent reminder moved to the future): a new one.
      if (!(error instanceof ResourceNotFoundException)) throw error;
      try {
        await this.client.send(new CreateScheduleCommand(definition));
      } catch (createError) {
        if (!(createError instanceof ConflictException)) throw createError;
        await this.client.send(new UpdateScheduleCommand(definition));
      }
    }
  }

  async disarm(target: Pick<ReminderTarget, 'reminder_id'>): Promise<void> {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: reminderScheduleName(target.reminder_id), GroupName: this.settings.groupName }));
    } catch (error) {
      // Already gone: it ran (ActionAfterCompletion DELETE) or was never created.
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
  }
}

/** Locally the due index is the schedule: the poller (local/event-pipeline.ts) fires what is due. */
export class LocalReminderScheduler implements ReminderScheduler {
  async arm(): Promise<void> {}
  async disarm(): Promise<void> {}
}

/** The adapter SCHEDULER_MODE names (`aws` needs the REMINDER_* settings CDK gives the mortgage-files function). */
const reminderScheduler = perSchedulerMode<ReminderScheduler>(
  { groupName: 'REMINDER_SCHEDULE_GROUP', roleArn: 'REMINDER_SCHEDULER_ROLE_ARN', targetArn: 'REMINDER_TARGET_ARN' },
  () => new LocalReminderScheduler(),
  (client, target) => new EventBridgeReminderScheduler(client, target),
);

export const getReminderScheduler = (): ReminderScheduler => reminderScheduler.get();
export const resetReminderScheduler = (): void => reminderScheduler.reset();
