import { Duration, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { CfnSchedule, type CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { grantScheduleManagement, scheduleGroupWithRole, type ScheduleGroupWithRole } from './schedule-group';
import { ServiceFunction } from './service-function';

export interface RemindersProps {
  table: ITable;
  /**
   * The webhook delivery queue's send grant (and its DELIVERY_QUEUE_URL): the sweep also wakes
   * webhook deliveries whose wake-up is overdue.
   */
  deliveryQueue: { grantEnqueue(fn: ServiceFunction): void };
}

/**
 * File reminders (resources.md §9.2): the scheduler-target function (design.md), which EventBridge
 * Scheduler invokes with one reminder's one-time schedule (`{kind: "reminder", ...}`) or with the
 * `rate(5 minutes)` sweep (`{kind: "sweep"}`: reminders whose schedule was lost between a commit
 * and its Scheduler call, and webhook deliveries whose wake-up was lost between the delivery's
 * write and its SQS message or retry schedule); the schedule group the API's reminder schedules
 * live in; and the role Scheduler assumes to invoke the function.
 */
export class Reminders extends Construct {
  private readonly schedules: ScheduleGroupWithRole;
  readonly scheduleGroup: CfnScheduleGroup;
  /** The role EventBridge Scheduler assumes to invoke the scheduler-target function. */
  readonly schedulerRole: Role;
  readonly targetFunction: ServiceFunction;
  readonly sweepSchedule: CfnSchedule;

  constructor(scope: Construct, id: string, props: RemindersProps) {
    super(scope, id);
    const stack = Stack.of(this);

    this.targetFunction = new ServiceFunction(this, 'SchedulerTargetFunction', {
      functionFolder: 'scheduler-target',
      description: 'Fires due file reminders (their one-time schedules) and, every 5 minutes, sweeps overdue reminders and webhook deliveries',
      timeout: Duration.seconds(60),
    });
    this.targetFunction.grantTable(props.table, 'read-write');
    props.deliveryQueue.grantEnqueue(this.targetFunction);

    // Named after the stack so two deployments in one account and region do not collide.
    this.schedules = scheduleGroupWithRole(this, { group: 'ReminderScheduleGroup', role: 'SchedulerRole' }, {
      name: `${stack.stackName}-reminders`,
      roleDescription: 'Assumed by EventBridge Scheduler to invoke the scheduler-target function for file reminders',
    });
    this.scheduleGroup = this.schedules.group;
    this.schedulerRole = this.schedules.role;
    this.schedulerRole.addToPolicy(new PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.targetFunction.functionArn] }));

    this.sweepSchedule = new CfnSchedule(this, 'SweepSchedule', {
      description: 'Fires overdue file reminders and wakes overdue webhook deliveries (a schedule or message that was never sent)',
      groupName: this.scheduleGroup.ref,
      scheduleExpression: 'rate(5 minutes)',
      flexibleTimeWindow: { mode: 'OFF' },
      target: {
        arn: this.targetFunction.functionArn,
        roleArn: this.schedulerRole.roleArn,
        input: JSON.stringify({ kind: 'sweep' }),
        // The next sweep comes in 5 minutes anyway.
        retryPolicy: { maximumRetryAttempts: 0, maximumEventAgeInSeconds: 300 },
      },
    });
  }

  /**
   * For the mortgage-files API function: create, move and delete reminder schedules in the
   * reminder group only, and pass the reminder scheduler role (and no other) to EventBridge
   * Scheduler; with the settings the configuration reads.
   */
  grantScheduling(fn: ServiceFunction): void {
    grantScheduleManagement(
      fn,
      this.schedules,
      ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      'Each reminder has its own one-time schedule named after it, so the function may manage any schedule, but only inside the reminder group.',
    );
    fn.addEnvironment('REMINDER_SCHEDULE_GROUP', this.scheduleGroup.ref);
    fn.addEnvironment('REMINDER_SCHEDULER_ROLE_ARN', this.schedulerRole.roleArn);
    fn.addEnvironment('REMINDER_TARGET_ARN', this.targetFunction.functionArn);
  }
}
