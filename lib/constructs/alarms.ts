import { Duration, Stack } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Alias } from 'aws-cdk-lib/aws-kms';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface ServiceAlarmsProps {
  /** Queues where work lands that nothing retries by itself: any message there needs a person. */
  deadLetterQueues: Record<string, IQueue>;
  /** The table stream's consumer: its iterator age says how far events lag behind writes. */
  streamConsumer: IFunction;
  /** Every function: an unhandled error or a throttle is worth knowing about. */
  functions: Record<string, IFunction>;
  httpApi: HttpApi;
  /** Where the alarms are sent besides the topic (`cdk deploy -c alarmEmail=ops@example.com`). */
  email?: string;
}

/**
 * What the operators are told about, on one SNS topic (`AlarmTopic` output): messages in a
 * dead-letter queue (an event or a delivery wake that nothing will retry), events lagging behind
 * writes, function errors and throttles, and API 5xx answers. Subscribe to the topic, or deploy
 * with `-c alarmEmail=...`.
 */
export class ServiceAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'AlarmTopic', {
      displayName: `${Stack.of(this).stackName} alarms`,
      enforceSSL: true,
      masterKey: Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    const action = new SnsAction(this.topic);
    const alarm = (name: string, metric: IMetric, threshold: number, description: string) => {
      const created = new Alarm(this, name, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
        alarmDescription: description,
      });
      created.addAlarmAction(action);
      created.addOkAction(action);
      this.alarms.push(created);
    };
    const fiveMinutes = Duration.minutes(5);

    for (const [name, queue] of Object.entries(props.deadLetterQueues)) {
      alarm(`${name}Messages`, queue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }), 1, `Messages in ${name}: work that is not retried by itself`);
    }
    alarm(
      'EventLag',
      props.streamConsumer.metric('IteratorAge', { period: fiveMinutes, statistic: 'Maximum' }),
      5 * 60 * 1000,
      'Table stream records wait more than 5 minutes for the fanout: webhook events lag behind writes',
    );
    for (const [name, fn] of Object.entries(props.functions)) {
      alarm(`${name}Errors`, fn.metricErrors({ period: fiveMinutes, statistic: 'Sum' }), 1, `Unhandled errors of the ${name} function`);
      alarm(`${name}Throttles`, fn.metricThrottles({ period: fiveMinutes, statistic: 'Sum' }), 1, `Throttled invocations of the ${name} function`);
    }
    alarm('Api5xx', props.httpApi.metricServerError({ period: fiveMinutes, statistic: 'Sum' }), 5, 'API answers 5xx (spec §7: 500 and 503 are retried by clients)');
  }
}
