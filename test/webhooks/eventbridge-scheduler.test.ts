import { ConflictException, CreateScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { resetConfigForTests } from '../../shared/config';
import { atExpression } from '../../shared/one-time-schedule';
import { EventBridgeDeliveryScheduler } from '../../shared/webhooks/eventbridge-delivery-scheduler';
import { LocalDeliveryScheduler } from '../../shared/webhooks/local-delivery-scheduler';
import { getDeliveryScheduler, resetDeliveryScheduler } from '../../shared/webhooks/wake-delivery';

const scheduler = mockClient(SchedulerClient);
const settings = {
  groupName: 'webhook-deliveries',
  roleArn: 'arn:aws:iam::123456789012:role/scheduler-sends-to-delivery-queue',
  targetArn: 'arn:aws:sqs:eu-central-1:123456789012:webhook-deliveries',
};
const wake = {
  organization_id: '0190a5a0-0000-7000-8000-000000000001',
  endpoint_id: '0190a5a0-0000-7000-8000-000000000002',
  delivery_id: '0190a5a0-0000-7000-8000-000000000003',
  attempt: 3,
};

beforeEach(() => scheduler.reset());

describe('design "Events": delays beyond 15 minutes go through EventBridge Scheduler', () => {
  test('spec §3: a retry is a one-time at() schedule that sends the wake to the delivery queue and deletes itself', async () => {
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    await new EventBridgeDeliveryScheduler(new SchedulerClient({ region: 'eu-central-1' }), settings).scheduleWake(
      wake,
      new Date('2025-03-01T10:30:00.250Z'),
    );
    const calls = scheduler.commandCalls(CreateScheduleCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0].args[0].input).toEqual({
      Name: `delivery-${wake.delivery_id}-3`,
      GroupName: 'webhook-deliveries',
      ScheduleExpression: 'at(2025-03-01T10:30:01)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: settings.targetArn,
        RoleArn: settings.roleArn,
        Input: JSON.stringify(wake),
        RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
      },
    });
    expect(JSON.parse(calls[0].args[0].input.Target!.Input!)).toEqual(wake);
  });

  test('the schedule name is per delivery attempt and at most 64 characters; an existing one counts as scheduled', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} }));
    await expect(
      new EventBridgeDeliveryScheduler(new SchedulerClient({ region: 'eu-central-1' }), settings).scheduleWake(wake, new Date()),
    ).resolves.toBeUndefined();
    const name = scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input.Name!;
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^[0-9a-zA-Z-_.]+$/);
  });

  test('other scheduler errors are not swallowed (the worker reports the message as failed)', async () => {
    scheduler.on(CreateScheduleCommand).rejects(new Error('throttled'));
    await expect(
      new EventBridgeDeliveryScheduler(new SchedulerClient({ region: 'eu-central-1' }), settings).scheduleWake(wake, new Date()),
    ).rejects.toThrow('throttled');
  });

  test('at() rounds up to the next whole second so a wake never comes early', () => {
    expect(atExpression(new Date('2025-03-01T10:30:00.000Z'))).toBe('at(2025-03-01T10:30:00)');
    expect(atExpression(new Date('2025-03-01T23:59:59.001Z'))).toBe('at(2025-03-02T00:00:00)');
  });

  test('SCHEDULER_MODE chooses the adapter: aws → EventBridge Scheduler, local → the DynamoDB-backed scheduler', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        SCHEDULER_MODE: 'aws',
        SCHEDULER_GROUP_NAME: settings.groupName,
        SCHEDULER_ROLE_ARN: settings.roleArn,
        SCHEDULER_TARGET_ARN: settings.targetArn,
      });
      resetConfigForTests();
      resetDeliveryScheduler();
      expect(getDeliveryScheduler()).toBeInstanceOf(EventBridgeDeliveryScheduler);
      process.env.SCHEDULER_MODE = 'local';
      resetConfigForTests();
      resetDeliveryScheduler();
      expect(getDeliveryScheduler()).toBeInstanceOf(LocalDeliveryScheduler);
    } finally {
      process.env = saved;
      resetConfigForTests();
      resetDeliveryScheduler();
    }
  });
});
