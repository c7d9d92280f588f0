import { Stack, Validations } from 'aws-cdk-lib';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import type { ServiceFunction } from './service-function';

/**
 * An EventBridge Scheduler group of one-time schedules and the role its schedules run as (webhook
 * retries, file reminders). Plain functions rather than a construct, so the group and the role keep
 * the construct ids (and so the logical ids) they were deployed with.
 */
export interface ScheduleGroupWithRole {
  group: CfnScheduleGroup;
  role: Role;
}

export function scheduleGroupWithRole(
  scope: Construct,
  ids: { group: string; role: string },
  options: { name: string; roleDescription: string },
): ScheduleGroupWithRole {
  const stack = Stack.of(scope);
  const group = new CfnScheduleGroup(scope, ids.group, { name: options.name });
  const role = new Role(scope, ids.role, {
    description: options.roleDescription,
    // Confused-deputy guard: only schedules of this account's group may use the role.
    assumedBy: new ServicePrincipal('scheduler.amazonaws.com', {
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnEquals: { 'aws:SourceArn': group.attrArn },
      },
    }),
  });
  return { group, role };
}

/**
 * Lets a function manage schedules inside the group only (the given actions), passing the group's
 * role and no other to EventBridge Scheduler. Schedules are named per item, hence the wildcard
 * inside the group, acknowledged for cdk-nag with `reason`.
 */
export function grantScheduleManagement(
  fn: ServiceFunction,
  { group, role }: ScheduleGroupWithRole,
  actions: string[],
  reason: string,
): void {
  const stack = Stack.of(group);
  fn.addToRolePolicy(
    new PolicyStatement({ actions, resources: [stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${group.ref}/*` })] }),
  );
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [role.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    }),
  );
  Validations.of(fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:<AWS::Region>:<AWS::AccountId>:schedule/<${stack.getLogicalId(group)}>/*]`,
    reason,
  });
}
