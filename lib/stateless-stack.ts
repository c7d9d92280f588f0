import { CfnOutput, CrossStackReferences, Fn, ReferenceStrength, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { ServiceAlarms } from './constructs/alarms';
import { constructId, ServiceHttpApi } from './constructs/http-api';
import { LeadIntake } from './constructs/intake';
import { Reminders } from './constructs/reminders';
import { Webhooks } from './constructs/webhooks';

export interface StatelessStackProps extends StackProps {
  /** The table of the stateful stack (with its stream). */
  table: ITable;
}

/** Everything that can be replaced freely: functions, API, queues, schedules. */
export class StatelessStack extends Stack {
  readonly httpApi: ServiceHttpApi;
  readonly webhooks: Webhooks;
  readonly intake: LeadIntake;
  readonly reminders: Reminders;
  readonly alarms: ServiceAlarms;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { table } = props;
    // Exports/imports: CloudFormation then refuses to delete or replace the table stack's
    // outputs while these functions use them.
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);

    this.webhooks = new Webhooks(this, 'Webhooks', { table });
    // The sweep of scheduler-target also wakes overdue webhook deliveries and finishes half-done deletes.
    this.reminders = new Reminders(this, 'Reminders', { table, deliveryQueue: this.webhooks });
    this.httpApi = new ServiceHttpApi(this, 'HttpApi', {
      table,
      groupAccess: {
        // Test pings and redeliveries are put on the queue at once; their retries are the delivery worker's.
        webhooks: (fn) => this.webhooks.grantEnqueue(fn),
        // File reminders: their one-time schedules follow the reminder (created, moved, deleted).
        'mortgage-files': (fn) => this.reminders.grantScheduling(fn),
      },
    });
    this.intake = new LeadIntake(this, 'Intake', { table, httpApi: this.httpApi });

    const alarmEmail: unknown = this.node.tryGetContext('alarmEmail');
    this.alarms = new ServiceAlarms(this, 'Alarms', {
      deadLetterQueues: { DeliveryDeadLetterQueue: this.webhooks.deliveryDeadLetterQueue, StreamFailureQueue: this.webhooks.streamFailureQueue },
      streamConsumer: this.webhooks.fanoutFunction,
      functions: {
        ...Object.fromEntries([...this.httpApi.functions].map(([group, fn]) => [constructId(group), fn])),
        Intake: this.intake.intakeFunction,
        StreamFanout: this.webhooks.fanoutFunction,
        WebhookDelivery: this.webhooks.deliveryFunction,
        SchedulerTarget: this.reminders.targetFunction,
      },
      httpApi: this.httpApi.api,
      email: typeof alarmEmail === 'string' && alarmEmail ? alarmEmail : undefined,
    });
    new CfnOutput(this, 'AlarmTopic', { value: this.alarms.topic.topicArn, description: 'Alarms are published here: subscribe, or deploy with -c alarmEmail=...' });

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.baseUrl, description: '{base_url}' });
    new CfnOutput(this, 'IntakeUrl', {
      value: this.httpApi.baseUrl,
      description: '{intake_url}: forms post to <IntakeUrl>/hooks/leads/<token>',
    });
    // The Function URL ends in "/"; {intake_direct_url} is the bare origin, as locally.
    const directHost = Fn.select(2, Fn.split('/', this.intake.directUrl.url));
    new CfnOutput(this, 'IntakeDirectUrl', {
      value: Fn.join('', ['https://', directHost]),
      description: '{intake_direct_url}: forms post to <IntakeDirectUrl>/<token>; needed for IP allow-lists',
    });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'The service table (from the stateful stack)' });
  }
}
