import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { handler as schedulerTarget } from '../../functions/scheduler-target/handler';
import { localLambdaContext } from '../../local/lambda-context';
import { configureService, resetConfigForTests } from '../../shared/config';
import { EventBridgeReminderScheduler, getReminderScheduler, LocalReminderScheduler, resetReminderScheduler } from '../../shared/reminders/reminder-scheduler';
import { startTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * resources.md §9.2 in AWS: one one-time EventBridge Scheduler schedule per reminder, named after
 * it, created, moved and deleted with the reminder, invoking the scheduler-target function; the
 * exact commands are checked here (design.md: Scheduler is the one AWS part that is mocked).
 */
const scheduler = mockClient(SchedulerClient);
const settings = {
  groupName: 'svc-reminders',
  roleArn: 'arn:aws:iam::123456789012:role/scheduler-invokes-scheduler-target',
  targetArn: 'arn:aws:lambda:eu-central-1:123456789012:function:scheduler-target',
};
const target = {
  organization_id: '0190a5a0-0000-7000-8000-000000000001',
  mortgage_file_id: '0190a5a0-0000-7000-8000-000000000002',
  reminder_id: '0190a5a0-0000-7000-8000-000000000003',
  remind_at: '2030-03-01T12:30:00.250+02:00',
};
const expectedSchedule = (remindAt: string, at: string, reminder = target) => ({
  Name: `reminder-${reminder.reminder_id}`,
  GroupName: settings.groupName,
  ScheduleExpression: `at(${at})`,
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' },
  ActionAfterCompletion: 'DELETE',
  Target: {
    Arn: settings.targetArn,
    RoleArn: settings.roleArn,
    Input: JSON.stringify({ kind: 'reminder', ...reminder, remind_at: remindAt }),
    RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
  },
});
const adapter = () => new EventBridgeReminderScheduler(new SchedulerClient({ region: 'eu-central-1' }), settings);
const notFound = () => new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} });
const conflict = () => new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} });

beforeEach(() => scheduler.reset());

describe('the EventBridge reminder scheduler (exact commands)', () => {
  test('a new reminder: one CreateSchedule, at() in UTC rounded up to the second, deleting itself after it ran', async () => {
    await adapter().arm(target, 'created');
    expect(scheduler.calls()).toHaveLength(1);
    expect(scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input).toEqual(expectedSchedule(target.remind_at, '2030-03-01T10:30:01'));
    expect(`reminder-${target.reminder_id}`.length).toBeLessThanOrEqual(64);
  });

  test('created twice (a retried request): Conflict → UpdateSchedule with the same definition', async () => {
    scheduler.on(CreateScheduleCommand).rejects(conflict());
    await adapter().arm(target, 'created');
    expect(scheduler.commandCalls(UpdateScheduleCommand).map((call) => call.args[0].input)).toEqual([expectedSchedule(target.remind_at, '2030-03-01T10:30:01')]);
  });

  test('moved: UpdateSchedule; when the schedule already ran and deleted itself (a sent reminder re-armed): CreateSchedule', async () => {
    const moved = { ...target, remind_at: '2030-04-01T08:00:00Z' };
    await adapter().arm(moved, 'moved');
    expect(scheduler.calls().map((call) => call.args[0].constructor.name)).toEqual(['UpdateScheduleCommand']);
    expect(scheduler.commandCalls(UpdateScheduleCommand)[0].args[0].input).toEqual(expectedSchedule(moved.remind_at, '2030-04-01T08:00:00'));

    scheduler.reset();
    scheduler.on(UpdateScheduleCommand).rejects(notFound());
    await adapter().arm(moved, 'moved');
    expect(scheduler.calls().map((call) => call.args[0].constructor.name)).toEqual(['UpdateScheduleCommand', 'CreateScheduleCommand']);
    expect(scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input).toEqual(expectedSchedule(moved.remind_at, '2030-04-01T08:00:00'));
  });

  test('cancelled or deleted: DeleteSchedule by name and group; an already gone schedule is fine, other errors are not swallowed', async () => {
    await adapter().disarm(target);
    expect(scheduler.commandCalls(DeleteScheduleCommand)[0].args[0].input).toEqual({ Name: `reminder-${target.reminder_id}`, GroupName: settings.groupName });
    scheduler.on(DeleteScheduleCommand).rejects(notFound());
    await expect(adapter().disarm(target)).resolves.toBeUndefined();
    scheduler.on(DeleteScheduleCommand).rejects(new Error('throttled'));
    await expect(adapter().disarm(target)).rejects.toThrow('throttled');
  });

  test('SCHEDULER_MODE chooses the adapter: aws → EventBridge Scheduler (REMINDER_* settings required), local → the due-index poller', () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, { SCHEDULER_MODE: 'aws', REMINDER_SCHEDULE_GROUP: settings.groupName, REMINDER_SCHEDULER_ROLE_ARN: settings.roleArn, REMINDER_TARGET_ARN: settings.targetArn });
      resetConfigForTests();
      resetReminderScheduler();
      expect(getReminderScheduler()).toBeInstanceOf(EventBridgeReminderScheduler);
      delete process.env.REMINDER_TARGET_ARN;
      resetConfigForTests();
      expect(() => getReminderScheduler()).toThrow('REMINDER_TARGET_ARN');
      process.env.SCHEDULER_MODE = 'local';
      resetConfigForTests();
      expect(getReminderScheduler()).toBeInstanceOf(LocalReminderScheduler);
    } finally {
      process.env = saved;
      resetConfigForTests();
      resetReminderScheduler();
    }
  });
});

describe('reminders through the API with the AWS adapter (Scheduler mocked, DynamoDB Local real)', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await startTestRuntime({ events: false, reminders: false });
    // The mortgage-files function as CDK configures it: SCHEDULER_MODE aws and the reminder settings.
    configureService({
      DYNAMODB_ENDPOINT: runtime.dynamoDbEndpoint,
      TABLE_NAME: runtime.tableName,
      SQS_ENDPOINT: runtime.sqsEndpoint,
      DELIVERY_QUEUE_URL: runtime.deliveryQueueUrl,
      SCHEDULER_MODE: 'aws',
      REMINDER_SCHEDULE_GROUP: settings.groupName,
      REMINDER_SCHEDULER_ROLE_ARN: settings.roleArn,
      REMINDER_TARGET_ARN: settings.targetArn,
    });
  });
  afterAll(async () => {
    await runtime.stop();
    resetConfigForTests();
  });
  const invoke = (event: unknown) => schedulerTarget(event, localLambdaContext('scheduler-target'));
  const names = () => scheduler.calls().map((call) => call.args[0].constructor.name);

  test('create → CreateSchedule; move → UpdateSchedule; cancel → DeleteSchedule; re-arm → Update/Create; delete → DeleteSchedule; the schedule’s input fires it once', async () => {
    const tenant = await runtime.organization();
    const file = (await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body: {} })).body;
    const remindAt = new Date(Date.now() + 3600_000).toISOString();
    const created = (await runtime.request('POST', `/mortgage-files/${file.id}/reminders`, { key: tenant.apiKey, body: { title: 'AWS', remind_at: remindAt } })).body;
    const path = `/mortgage-files/${file.id}/reminders/${created.id}`;
    const reminder = { organization_id: tenant.organizationId, mortgage_file_id: file.id, reminder_id: created.id };
    expect(names()).toEqual(['CreateScheduleCommand']);
    const input = JSON.parse(scheduler.commandCalls(CreateScheduleCommand)[0].args[0].input.Target!.Input!);
    expect(input).toEqual({ kind: 'reminder', ...reminder, remind_at: remindAt });

    // A title change moves nothing.
    scheduler.reset();
    await runtime.request('PATCH', path, { key: tenant.apiKey, body: { title: 'AWS reminder' } });
    expect(names()).toEqual([]);

    const later = new Date(Date.now() + 7200_000).toISOString();
    await runtime.request('PATCH', path, { key: tenant.apiKey, body: { remind_at: later } });
    expect(names()).toEqual(['UpdateScheduleCommand']);
    expect(JSON.parse(scheduler.commandCalls(UpdateScheduleCommand)[0].args[0].input.Target!.Input!).remind_at).toBe(later);

    // The old arming's schedule, had it still run, fires nothing.
    expect(await invoke(input)).toEqual({ kind: 'reminder', fired: 0 });

    scheduler.reset();
    await runtime.request('PATCH', path, { key: tenant.apiKey, body: { status: 'cancelled' } });
    expect(scheduler.commandCalls(DeleteScheduleCommand).map((call) => call.args[0].input)).toEqual([{ Name: `reminder-${created.id}`, GroupName: settings.groupName }]);
    expect(await invoke({ kind: 'reminder', ...reminder, remind_at: later })).toEqual({ kind: 'reminder', fired: 0 });

    scheduler.reset();
    scheduler.on(UpdateScheduleCommand).rejects(notFound());
    await runtime.request('PATCH', path, { key: tenant.apiKey, body: { status: 'scheduled' } });
    expect(names()).toEqual(['UpdateScheduleCommand', 'CreateScheduleCommand']);

    scheduler.reset();
    expect((await runtime.request('DELETE', path, { key: tenant.apiKey })).status).toBe(200);
    expect(names()).toEqual(['DeleteScheduleCommand']);
    expect(await invoke({ kind: 'reminder', ...reminder, remind_at: later })).toEqual({ kind: 'reminder', fired: 0 });
  });

  test('the schedule’s invocation fires the reminder once; a past time fires at once without a schedule', async () => {
    const tenant = await runtime.organization();
    const file = (await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body: {} })).body;
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = (await runtime.request('POST', `/mortgage-files/${file.id}/reminders`, { key: tenant.apiKey, body: { title: 'Due soon', remind_at: soon } })).body;
    const input = JSON.parse(scheduler.commandCalls(CreateScheduleCommand).at(-1)!.args[0].input.Target!.Input!);
    expect(await invoke(input)).toEqual({ kind: 'reminder', fired: 1 });
    expect(await invoke(input)).toEqual({ kind: 'reminder', fired: 0 });
    const read = (await runtime.request('GET', `/mortgage-files/${file.id}/reminders/${created.id}`, { key: tenant.apiKey })).body;
    expect(read).toMatchObject({ status: 'sent', sent_at: expect.any(String) });

    scheduler.reset();
    const past = (await runtime.request('POST', `/mortgage-files/${file.id}/reminders`, { key: tenant.apiKey, body: { title: 'Overdue', remind_at: '2024-01-01T00:00:00Z' } })).body;
    expect(names()).toEqual([]);
    expect((await runtime.request('GET', `/mortgage-files/${file.id}/reminders/${past.id}`, { key: tenant.apiKey })).body.status).toBe('sent');
    const notifications = (await runtime.admin<{ data: any[] }>('notifications', '--user', tenant.userId)).data.filter((row) => row.type === 'reminder');
    expect(notifications.map((row) => row.reminder_id).sort()).toEqual([created.id, past.id].sort());
    expect(await invoke({ kind: 'nonsense' })).toEqual({ kind: 'unknown', fired: 0 });
  });

  test('a Scheduler failure after the commit does not fail the write; the sweep fires the reminder when it is due', async () => {
    const tenant = await runtime.organization();
    const file = (await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body: {} })).body;
    scheduler.on(CreateScheduleCommand).rejects(new Error('scheduler unavailable'));
    const created = await runtime.request('POST', `/mortgage-files/${file.id}/reminders`, { key: tenant.apiKey, body: { title: 'Lost schedule', remind_at: new Date(Date.now() + 1000).toISOString() } });
    expect(created.status).toBe(201);
    expect(await invoke({ kind: 'sweep-reminders' })).toEqual({ kind: 'sweep-reminders', fired: 0 }); // not due yet
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const swept = await invoke({ kind: 'sweep-reminders' });
    expect(swept.fired).toBeGreaterThanOrEqual(1);
    expect((await runtime.request('GET', `/mortgage-files/${file.id}/reminders/${created.body.id}`, { key: tenant.apiKey })).body.status).toBe('sent');
    expect((await runtime.request('GET', `/mortgage-files/${file.id}/timeline?event_type=reminder_sent`, { key: tenant.apiKey })).body.count).toBe(1);
  });
});
