import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type Role } from 'aws-cdk-lib/aws-iam';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { grantScheduleManagement, scheduleGroupWithRole, type ScheduleGroupWithRole } from './schedule-group';
import { ServiceFunction } from './service-function';

export interface WebhooksProps {
  /** The service table; it must have a stream (the fanout reads it). */
  table: ITable;
}

/**
 * The receiver timeout is 10 s (spec §8); an attempt leases its delivery for that plus 30 s, so
 * the function outlives the lease and a timed-out invocation never leaves a lease half-used.
 */
const DELIVERY_TIMEOUT = Duration.seconds(60);

/**
 * Events and outbound webhooks: table stream → fanout → delivery queue → delivery function →
 * receivers, and EventBridge Scheduler for retry delays longer than SQS's 15-minute maximum.
 * Pending deliveries live in the table; the queue only wakes the worker.
 */
export class Webhooks extends Construct {
  readonly deliveryQueue: Queue;
  readonly deliveryDeadLetterQueue: Queue;
  /** Stream batches the fanout gave up on (after retries and bisection). */
  readonly streamFailureQueue: Queue;
  private readonly schedules: ScheduleGroupWithRole;
  readonly scheduleGroup: CfnScheduleGroup;
  /** The role EventBridge Scheduler assumes to put a due retry on the delivery queue. */
  readonly schedulerRole: Role;
  readonly fanoutFunction: ServiceFunction;
  readonly deliveryFunction: ServiceFunction;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const { table } = props;
    const stack = Stack.of(this);
    const tableStreamArn = table.tableStreamArn;
    if (!tableStreamArn) throw new Error('The webhooks need a table with a stream');

    this.deliveryDeadLetterQueue = new Queue(this, 'DeliveryDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.deliveryQueue = new Queue(this, 'DeliveryQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // AWS recommends at least six times the consumer's timeout, so a message is not handed
      // to a second worker while the first is still retrying its batch.
      visibilityTimeout: Duration.seconds(DELIVERY_TIMEOUT.toSeconds() * 6),
      deadLetterQueue: { queue: this.deliveryDeadLetterQueue, maxReceiveCount: 5 },
    });
    this.streamFailureQueue = new Queue(this, 'StreamFailureQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.streamFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the on-failure destination of the table stream event source mapping (cdk-nag only recognises queues named in another queue\'s redrive policy).',
    });

    // Named after the stack so two deployments in one account and region do not collide.
    this.schedules = scheduleGroupWithRole(this, { group: 'RetryScheduleGroup', role: 'SchedulerRole' }, {
      name: `${stack.stackName}-webhook-retries`,
      roleDescription: 'Assumed by EventBridge Scheduler to put due webhook retries on the delivery queue',
    });
    this.scheduleGroup = this.schedules.group;
    this.schedulerRole = this.schedules.role;
    this.schedulerRole.addToPolicy(
      new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deliveryQueue.queueArn] }),
    );

    this.fanoutFunction = new ServiceFunction(this, 'StreamFanoutFunction', {
      functionFolder: 'stream-fanout',
      description: 'Derives events from table stream records and records one delivery per subscription',
      timeout: Duration.seconds(60),
    });
    this.fanoutFunction.grantTable(table, 'read-write');
    this.grantEnqueue(this.fanoutFunction);
    // Scoped to this table's stream; DynamoEventSource would also grant ListStreams on "*".
    this.fanoutFunction.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        resources: [tableStreamArn],
      }),
    );
    this.fanoutFunction.addEventSourceMapping('TableStream', {
      eventSourceArn: tableStreamArn,
      // From the oldest record kept (24 hours): a mapping created again (a replaced stack) reads the
      // writes made meanwhile instead of skipping them. Nothing is sent twice: delivery ids are
      // derived and put conditionally, and an endpoint gets only events after its activation.
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      // No batching window: Lambda polls each shard four times a second and invokes as soon as
      // records are there (a window of 1 s would add up to a second to every event's latency);
      // under load the batches grow by themselves, up to 100 records.
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 5,
      // Stream records live 24 hours; older ones cannot be read anyway.
      maxRecordAge: Duration.hours(24),
      onFailure: new SqsDlq(this.streamFailureQueue),
    });

    this.deliveryFunction = new ServiceFunction(this, 'WebhookDeliveryFunction', {
      functionFolder: 'webhook-delivery',
      description: 'Signs and sends due webhook deliveries and schedules their retries',
      timeout: DELIVERY_TIMEOUT,
    });
    this.deliveryFunction.grantTable(table, 'read-write');
    this.grantEnqueue(this.deliveryFunction);
    this.grantScheduling(this.deliveryFunction);
    this.deliveryFunction.addEventSource(
      new SqsEventSource(this.deliveryQueue, {
        // The worker sends a batch concurrently, so ten receivers at 10 s each fit the 60 s timeout.
        batchSize: 10,
        reportBatchItemFailures: true,
      }),
    );
  }

  /**
   * Send on the delivery queue (SendMessageBatch needs sqs:SendMessage), with the queue URL the
   * configuration reads. Not `grantSendMessages`: the queue URL is given, so GetQueueUrl and
   * GetQueueAttributes would go unused.
   */
  grantEnqueue(fn: ServiceFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deliveryQueue.queueArn] }));
    fn.addEnvironment('DELIVERY_QUEUE_URL', this.deliveryQueue.queueUrl);
  }

  /**
   * For the delivery worker, which schedules the retries longer than SQS can delay: creating
   * one-time schedules in the retry group only, and passing the scheduler role (and no other) to
   * EventBridge Scheduler. No DeleteSchedule: a schedule deletes itself after it ran
   * (ActionAfterCompletion DELETE), which EventBridge Scheduler does on its own authority.
   */
  private grantScheduling(fn: ServiceFunction): void {
    grantScheduleManagement(
      fn,
      this.schedules,
      ['scheduler:CreateSchedule'],
      'Each retry is its own one-time schedule with a generated name, so the function may create any schedule, but only inside the webhook retry group.',
    );
    fn.addEnvironment('SCHEDULER_MODE', 'aws');
    fn.addEnvironment('SCHEDULER_GROUP_NAME', this.scheduleGroup.ref);
    fn.addEnvironment('SCHEDULER_ROLE_ARN', this.schedulerRole.roleArn);
    fn.addEnvironment('SCHEDULER_TARGET_ARN', this.deliveryQueue.queueArn);
  }
}
