import { SchedulerClient, type CreateScheduleCommandInput } from '@aws-sdk/client-scheduler';
import { perConfiguration, type ServiceConfig } from './config';

/**
 * The one shape of the service's EventBridge Scheduler schedules (webhook retries, file
 * reminders): a single run at a time in UTC, no flexible window, deleted after it ran, the target's
 * own retries for a day.
 */
export interface ScheduleTarget {
  groupName: string;
  /** The role EventBridge Scheduler assumes to reach the target. */
  roleArn: string;
  /** What the schedule sends its input to (the delivery queue, the scheduler-target function). */
  targetArn: string;
}

/** The three settings that name a schedule target. */
export interface ScheduleTargetSettings {
  groupName: OptionalSetting;
  roleArn: OptionalSetting;
  targetArn: OptionalSetting;
}

type OptionalSetting = { [K in keyof ServiceConfig]-?: undefined extends ServiceConfig[K] ? (string extends NonNullable<ServiceConfig[K]> ? K : never) : never }[keyof ServiceConfig];

/**
 * The target named by three settings of the configuration (CDK gives them to the functions that
 * schedule); a function asked to schedule without them is misconfigured, and says which.
 */
export function configuredScheduleTarget(config: ServiceConfig, settings: ScheduleTargetSettings): ScheduleTarget {
  const [groupName, roleArn, targetArn] = [config[settings.groupName], config[settings.roleArn], config[settings.targetArn]];
  if (!groupName || !roleArn || !targetArn) {
    throw new Error(`${settings.groupName}, ${settings.roleArn} and ${settings.targetArn} must be configured`);
  }
  return { groupName, roleArn, targetArn };
}

/**
 * A scheduling adapter per configuration, as SCHEDULER_MODE names it: the local one, or the
 * EventBridge Scheduler one for the target its settings name (rebuilt after configureService).
 */
export function perSchedulerMode<T>(
  settings: ScheduleTargetSettings,
  local: () => T,
  eventBridge: (client: SchedulerClient, target: ScheduleTarget) => T,
): { get(): T; reset(): void } {
  return perConfiguration<T>((config) =>
    config.SCHEDULER_MODE === 'local'
      ? local()
      : eventBridge(
          // Bounded like the table's client in AWS: a stalled call fails (and is retried) well inside the
          // function's timeout instead of holding the request until Lambda ends it.
          new SchedulerClient({ region: config.AWS_REGION, maxAttempts: 3, requestHandler: { connectionTimeout: 1_000, requestTimeout: 2_000, throwOnRequestTimeout: true } }),
          configuredScheduleTarget(config, settings),
        ),
  );
}

/** `at(...)` takes whole seconds in UTC; rounding up means a schedule never fires early. */
export function atExpression(at: Date): string {
  const rounded = new Date(Math.ceil(at.getTime() / 1000) * 1000);
  return `at(${rounded.toISOString().slice(0, 19)})`;
}

export function oneTimeSchedule(name: string, at: Date, target: ScheduleTarget, input: unknown): CreateScheduleCommandInput {
  return {
    Name: name,
    GroupName: target.groupName,
    ScheduleExpression: atExpression(at),
    ScheduleExpressionTimezone: 'UTC',
    FlexibleTimeWindow: { Mode: 'OFF' },
    ActionAfterCompletion: 'DELETE',
    Target: {
      Arn: target.targetArn,
      RoleArn: target.roleArn,
      Input: JSON.stringify(input),
      RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
    },
  };
}
