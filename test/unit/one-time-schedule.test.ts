import type { ServiceConfig } from '../../shared/config';
import { atExpression, configuredScheduleTarget } from '../../shared/one-time-schedule';

const settings = { groupName: 'REMINDER_SCHEDULE_GROUP', roleArn: 'REMINDER_SCHEDULER_ROLE_ARN', targetArn: 'REMINDER_TARGET_ARN' } as const;

test('a schedule target comes from its three settings', () => {
  const config = {
    REMINDER_SCHEDULE_GROUP: 'reminders',
    REMINDER_SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler',
    REMINDER_TARGET_ARN: 'arn:aws:lambda:eu-west-1:123456789012:function:target',
  } as unknown as ServiceConfig;
  expect(configuredScheduleTarget(config, settings)).toEqual({
    groupName: 'reminders',
    roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    targetArn: 'arn:aws:lambda:eu-west-1:123456789012:function:target',
  });
});

test('a missing setting is a configuration error that names the three settings', () => {
  const config = { REMINDER_SCHEDULE_GROUP: 'reminders', REMINDER_TARGET_ARN: 'arn:target' } as unknown as ServiceConfig;
  expect(() => configuredScheduleTarget(config, settings)).toThrow(
    'REMINDER_SCHEDULE_GROUP, REMINDER_SCHEDULER_ROLE_ARN and REMINDER_TARGET_ARN must be configured',
  );
});

test('at() is in whole seconds of UTC, rounded up so a schedule never fires early', () => {
  expect(atExpression(new Date('2026-11-23T10:00:00.000Z'))).toBe('at(2026-11-23T10:00:00)');
  expect(atExpression(new Date('2026-11-23T10:00:00.001Z'))).toBe('at(2026-11-23T10:00:01)');
});
