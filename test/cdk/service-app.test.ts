import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { builtinModules } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { addMortgageServiceStacks, type MortgageServiceStacks } from '../../lib/mortgage-service-app';
import { API_BURST_LIMIT, API_RATE_LIMIT } from '../../lib/constructs/http-api';
import { INTAKE_API_PATH } from '../../lib/constructs/intake';
import { API_ROUTES, FALLBACK_GROUP, type FunctionGroup } from '../../shared/http/route-table';
import { GLOBAL_INDEXES } from '../../shared/storage/table-definition';

/*
 * The whole app exactly as bin/app.ts builds it (both stacks, cdk-nag registered), with real
 * esbuild bundling, built once for this file. app.synth() already fails on any unacknowledged
 * cdk-nag finding (the nag test below says which) and, with the strict flag, on any template
 * that CDK's built-in CloudFormation schema validation rejects.
 */
let app: App;
let stacks: MortgageServiceStacks;
let outdir: string;
let template: Template;
let stateful: Template;

beforeAll(() => {
  outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdk-service-app-'));
  app = new App({ outdir, context: { '@aws-cdk/core:validateAgainstDefaultRules': true, alarmEmail: 'ops@example.com' } });
  stacks = addMortgageServiceStacks(app);
  app.synth();
  template = Template.fromStack(stacks.stateless);
  stateful = Template.fromStack(stacks.stateful);
}, 120_000);

afterAll(() => {
  if (outdir) fs.rmSync(outdir, { recursive: true, force: true });
});

type Resource = { Type: string; Properties: Record<string, any>; Metadata?: Record<string, any>; DependsOn?: string[] };

const logicalId = (construct: IConstruct): string => Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnFunction);
const functions = (): Record<string, Resource> => template.findResources('AWS::Lambda::Function') as Record<string, Resource>;
const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });

function groupFunctionId(group: FunctionGroup): string {
  const fn = stacks.stateless.httpApi.functions.get(group);
  if (!fn) throw new Error(`no function for group ${group}`);
  return logicalId(fn);
}

/** The function an API route's integration invokes. */
function routeTargetFunction(routeKey: string): string {
  const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } }));
  expect(routes).toHaveLength(1);
  const target = routes[0].Properties.Target['Fn::Join'][1];
  expect(target[0]).toBe('integrations/');
  const integration = template.toJSON().Resources[target[1].Ref] as Resource;
  expect(integration.Properties.IntegrationType).toBe('AWS_PROXY');
  expect(integration.Properties.PayloadFormatVersion).toBe('2.0');
  return integration.Properties.IntegrationUri['Fn::GetAtt'][0];
}

/** The statements of every IAM policy in the stateless stack, with the policy's roles. */
function policyStatements(): Array<{ roles: string[]; statement: Record<string, any> }> {
  return Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Record<string, any>[]).map((statement) => ({
      roles: policy.Properties.Roles.map((role: { Ref: string }) => role.Ref),
      statement,
    })),
  );
}

function roleOf(functionId: string): string {
  return functions()[functionId].Properties.Role['Fn::GetAtt'][0];
}

function statementsOf(functionId: string): Record<string, any>[] {
  const role = roleOf(functionId);
  return policyStatements()
    .filter((entry) => entry.roles.includes(role))
    .map((entry) => entry.statement);
}

const asList = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The export names the stateful stack gives the table's ARN and stream ARN. */
function tableExport(attribute: 'Arn' | 'StreamArn'): { 'Fn::ImportValue': string } {
  const outputs = stateful.toJSON().Outputs as Record<string, { Value: any; Export?: { Name: string } }>;
  const output = Object.values(outputs).find(
    (candidate) => candidate.Export && candidate.Value['Fn::GetAtt']?.[1] === attribute,
  );
  if (!output) throw new Error(`the stateful stack exports no table ${attribute}`);
  return { 'Fn::ImportValue': output.Export!.Name };
}

describe('HTTP API (lib/constructs/http-api.ts) wired from shared/http/route-table.ts', () => {
  test('spec §4: every path of API_ROUTES has an ANY route to its group\'s function, so unsupported methods get the function\'s 405 + Allow', () => {
    for (const route of API_ROUTES) {
      expect(routeTargetFunction(`ANY ${route.path}`)).toBe(groupFunctionId(route.group));
    }
  });

  test('spec §4: an unknown path reaches the fallback function through $default (JSON 404)', () => {
    expect(routeTargetFunction('$default')).toBe(groupFunctionId(FALLBACK_GROUP));
  });

  test('every route may invoke its function: the source ARN API Gateway presents matches one of the function\'s permissions ($default is `<api>/<stage>/$default`)', () => {
    const apiId = Stack.of(stacks.stateless.httpApi.api).getLogicalId(stacks.stateless.httpApi.api.node.defaultChild as CfnFunction);
    /** The part of a permission's SourceArn after the API id, as a pattern (`*` matches anything, `/` too, as IAM's ArnLike). */
    const patternsOf = (functionId: string) =>
      Object.values(template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com', FunctionName: arnOf(functionId) } }) as Record<string, Resource>).map(
        (permission) => {
          const parts = permission.Properties.SourceArn['Fn::Join'][1] as unknown[];
          const at = parts.findIndex((part) => (part as { Ref?: string }).Ref === apiId);
          expect(at).toBeGreaterThan(-1);
          const suffix = parts.slice(at + 1).join('');
          return new RegExp(`^${suffix.split('*').map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
        },
      );
    const invokes = (functionId: string, sourceSuffix: string) => patternsOf(functionId).some((pattern) => pattern.test(sourceSuffix));
    expect(invokes(groupFunctionId(FALLBACK_GROUP), '/$default/$default')).toBe(true);
    for (const route of API_ROUTES) {
      const concretePath = route.path.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000');
      expect([route.path, invokes(groupFunctionId(route.group), `/$default/GET${concretePath}`)]).toEqual([route.path, true]);
    }
    const intakeId = logicalId(stacks.stateless.intake.intakeFunction);
    expect(invokes(intakeId, '/$default/POST/hooks/leads/token')).toBe(true);
  });

  test('design §Shape: one Lambda per resource group, every route of a group sharing one integration and one API-scoped invoke permission', () => {
    const groups = new Set<FunctionGroup>([...API_ROUTES.map((route) => route.group), FALLBACK_GROUP]);
    expect(stacks.stateless.httpApi.functions.size).toBe(groups.size);
    const integrations = Object.values(template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>);
    // The API groups plus the intake function.
    expect(integrations).toHaveLength(groups.size + 1);
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission', {
      Properties: { Principal: 'apigateway.amazonaws.com' },
    }) as Record<string, Resource>);
    // And the fallback's own for `$default` (see the test above).
    expect(permissions).toHaveLength(groups.size + 2);
  });

  test('spec §4 intake: POST (and ANY, for the 405) /hooks/leads/{token} go to the intake function', () => {
    const intakeId = logicalId(stacks.stateless.intake.intakeFunction);
    expect(INTAKE_API_PATH).toBe('/hooks/leads/{token}');
    expect(routeTargetFunction('POST /hooks/leads/{token}')).toBe(intakeId);
    expect(routeTargetFunction('ANY /hooks/leads/{token}')).toBe(intakeId);
  });

  test('spec §5 CORS: preflights reach the functions (every path has ANY, unknown paths $default), which answer with the permissive headers, as locally', () => {
    const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>).map(
      (route) => route.Properties.RouteKey,
    );
    for (const route of API_ROUTES) expect(routeKeys).toContain(`ANY ${route.path}`);
    expect(routeKeys).toContain('$default');
  });

  test('spec §4: no API-level CORS configuration, so API Gateway does not open the intake route to browsers', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP', CorsConfiguration: Match.absent() });
  });

  test('access logs: the auto-deployed $default stage logs JSON to a log group with retention, with the route template and never the raw path (intake tokens)', () => {
    const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage') as Record<string, Resource>);
    expect(stages).toHaveLength(1);
    const stage = stages[0].Properties;
    expect(stage.StageName).toBe('$default');
    expect(stage.AutoDeploy).toBe(true);
    const format = JSON.parse(stage.AccessLogSettings.Format);
    expect(format.requestId).toBe('$context.requestId');
    expect(format.routeKey).toBe('$context.routeKey');
    expect(stage.AccessLogSettings.Format).not.toMatch(/\$context\.(path|resourcePath)|requestOverride|identity\.apiKey/);
    const logGroup = template.toJSON().Resources[stage.AccessLogSettings.DestinationArn['Fn::GetAtt'][0]] as Resource;
    expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
    expect(logGroup.Properties.RetentionInDays).toBeGreaterThan(0);
  });
});

describe('service functions (lib/constructs/service-function.ts): the house defaults', () => {
  test('every Lambda is Node.js 22 on arm64 with 1024 MB, active tracing and source maps', () => {
    const all = Object.values(functions());
    expect(all.length).toBeGreaterThanOrEqual(6);
    for (const fn of all) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 1024,
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
      expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
    }
  });

  test('every Lambda logs to its own log group with a retention (not the never-expiring default)', () => {
    const resources = template.toJSON().Resources as Record<string, Resource>;
    for (const fn of Object.values(functions())) {
      const logGroup = resources[fn.Properties.LoggingConfig.LogGroup.Ref];
      expect(logGroup.Type).toBe('AWS::Logs::LogGroup');
      expect(logGroup.Properties.RetentionInDays).toBe(30);
    }
  });

  test('every bundle is a real esbuild bundle: minified, with a source map, the AWS SDK v3 clients bundled in (the tested version is the deployed one), and its module exports `handler`', () => {
    const builtins = new Set(builtinModules);
    for (const fn of Object.values(functions())) {
      // The code asset is staged as asset.<hash> and uploaded as <hash>.zip.
      const assetHash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
      const assetDirectory = path.join(outdir, `asset.${assetHash}`);
      const code = fs.readFileSync(path.join(assetDirectory, 'index.js'), 'utf8');
      expect(fs.existsSync(path.join(assetDirectory, 'index.js.map'))).toBe(true);
      expect(code).toMatch(/\/\/# sourceMappingURL=index\.js\.map\s*$/);
      // Minified: long lines (newlines survive only inside string literals).
      expect(code.length / code.split('\n').length).toBeGreaterThan(1000);
      // Only Node.js built-ins and the asset's own static files are required at run time.
      const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]);
      for (const name of required) {
        if (name.startsWith('./')) {
          expect({ name, shipped: fs.existsSync(path.join(assetDirectory, name)) }).toEqual({ name, shipped: true });
        } else {
          expect({ name, builtin: name.startsWith('node:') || builtins.has(name) }).toEqual({ name, builtin: true });
        }
      }
      // Loading it the way Lambda does, with nothing to resolve but the asset itself.
      execFileSync(
        process.execPath,
        ['-e', 'if (typeof require(process.argv[1]).handler !== "function") process.exit(3)', path.join(assetDirectory, 'index.js')],
        { env: { PATH: process.env.PATH, AWS_REGION: 'eu-west-1', TABLE_NAME: 'test' }, cwd: os.tmpdir(), stdio: 'pipe' },
      );
    }
  });
});

describe('least privilege on the table', () => {
  test('no IAM statement grants a dynamodb:* wildcard action or a "*" resource for DynamoDB', () => {
    const dynamoStatements = policyStatements()
      .map((entry) => entry.statement)
      .filter((statement) => asList(statement.Action).some((action: string) => action.startsWith('dynamodb:')));
    expect(dynamoStatements.length).toBeGreaterThan(0);
    for (const statement of dynamoStatements) {
      for (const action of asList(statement.Action) as string[]) {
        expect(action).not.toMatch(/\*/);
        expect(action).not.toBe('dynamodb:Scan');
      }
      for (const resource of asList(statement.Resource)) expect(resource).not.toBe('*');
    }
  });

  test('API functions reach the table and its named indexes only (Query on gsi1..gsiN), with TABLE_NAME set; the fallback (JSON 404, OpenAPI) not at all', () => {
    const tableArn = tableExport('Arn');
    const indexArns = GLOBAL_INDEXES.map((index) => ({ 'Fn::Join': ['', [tableArn, `/index/${index.indexName}`]] }));
    const apiFunctionIds = [...stacks.stateless.httpApi.functions.values()].map(logicalId);
    for (const id of apiFunctionIds) {
      const dynamo = statementsOf(id).filter((statement) => asList(statement.Action).some((action: string) => action.startsWith('dynamodb:')));
      expect(functions()[id].Properties.Environment.Variables.TABLE_NAME).toEqual({
        'Fn::ImportValue': expect.stringContaining('MortgageService-Stateful:ExportsOutputRefTable'),
      });
      if (id === groupFunctionId(FALLBACK_GROUP)) {
        expect(dynamo).toEqual([]);
        continue;
      }
      expect(dynamo).toEqual([
        {
          Effect: 'Allow',
          Action: [
            'dynamodb:GetItem',
            'dynamodb:BatchGetItem',
            'dynamodb:Query',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:DeleteItem',
            'dynamodb:BatchWriteItem',
            'dynamodb:ConditionCheckItem',
          ],
          Resource: tableArn,
        },
        { Effect: 'Allow', Action: 'dynamodb:Query', Resource: indexArns },
      ]);
    }
  });

});

describe('least privilege: every function\'s grants, pinned', () => {
  type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

  /** A statement with its actions as a sorted list, so the order CDK writes them in does not matter. */
  const normalized = (statement: Record<string, any>) => ({ ...statement, Action: [...asList(statement.Action as string | string[])].sort() });
  const sortedStatements = (statements: Record<string, any>[]) =>
    statements.map(normalized).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

  /**
   * What each function may do, by its logical id: the whole list of statements its role holds.
   * A grant added anywhere (a construct, a group's access, an event source) fails the test below
   * until it is written down here.
   */
  function expectedGrants(): Map<string, Statement[]> {
    const webhooks = stacks.stateless.webhooks;
    const stack = Stack.of(stacks.stateless);
    const tableArn = tableExport('Arn');
    const deliveryQueueArn = arnOf(stack.getLogicalId(webhooks.deliveryQueue.node.defaultChild as any));
    const failureQueueArn = arnOf(stack.getLogicalId(webhooks.streamFailureQueue.node.defaultChild as any));

    const tracing: Statement = { Effect: 'Allow', Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Resource: '*' };
    const table: Statement[] = [
      {
        Effect: 'Allow',
        Action: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:ConditionCheckItem',
        ],
        Resource: tableArn,
      },
      {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: GLOBAL_INDEXES.map((index) => ({ 'Fn::Join': ['', [tableArn, `/index/${index.indexName}`]] })),
      },
    ];
    const enqueue: Statement = { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: deliveryQueueArn };

    const reminders = stacks.stateless.reminders;
    const reminderScheduling: Statement[] = [
      {
        Effect: 'Allow',
        Action: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
        Resource: {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':schedule/', { Ref: stack.getLogicalId(reminders.scheduleGroup) }, '/*'],
          ],
        },
      },
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: arnOf(stack.getLogicalId(reminders.schedulerRole.node.defaultChild as any)),
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
    ];

    const grants = new Map<string, Statement[]>();
    for (const [group, fn] of stacks.stateless.httpApi.functions) {
      // The webhooks API puts test pings and redeliveries on the queue; it schedules nothing.
      // The mortgage-files API creates, moves and deletes file reminders' schedules.
      // The fallback (JSON 404, OpenAPI) reads nothing.
      const own = group === 'webhooks' ? [...table, enqueue] : group === 'mortgage-files' ? [...table, ...reminderScheduling] : group === FALLBACK_GROUP ? [] : table;
      grants.set(logicalId(fn), [tracing, ...own]);
    }
    // scheduler-target: fires reminders and wakes overdue webhook deliveries (Scheduler invokes it with its own role).
    grants.set(logicalId(reminders.targetFunction), [tracing, ...table, enqueue]);
    grants.set(logicalId(stacks.stateless.intake.intakeFunction), [tracing, ...table]);
    grants.set(logicalId(webhooks.fanoutFunction), [
      tracing,
      ...table,
      enqueue,
      {
        Effect: 'Allow',
        Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        Resource: tableExport('StreamArn'),
      },
      // The stream event source mapping's on-failure destination.
      { Effect: 'Allow', Action: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], Resource: failureQueueArn },
    ]);
    grants.set(logicalId(webhooks.deliveryFunction), [
      tracing,
      ...table,
      enqueue,
      {
        Effect: 'Allow',
        Action: 'scheduler:CreateSchedule',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':scheduler:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':schedule/',
              { Ref: stack.getLogicalId(webhooks.scheduleGroup) },
              '/*',
            ],
          ],
        },
      },
      {
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: arnOf(stack.getLogicalId(webhooks.schedulerRole.node.defaultChild as any)),
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      },
      // The queue event source mapping, which reads with the function's role.
      {
        Effect: 'Allow',
        Action: ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueUrl', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
        Resource: deliveryQueueArn,
      },
    ]);
    return grants;
  }

  test('every function in the stack has its grants written down: the API groups, intake, fanout, delivery and scheduler-target, and no other', () => {
    expect(Object.keys(functions()).sort()).toEqual([...expectedGrants().keys()].sort());
    const groups = new Set<FunctionGroup>([...API_ROUTES.map((route) => route.group), FALLBACK_GROUP]);
    expect(Object.keys(functions())).toHaveLength(groups.size + 4);
  });

  test('each function\'s role holds exactly its written-down statements (actions and resources), nothing more', () => {
    for (const [id, expected] of expectedGrants()) {
      expect({ id, statements: sortedStatements(statementsOf(id)) }).toEqual({ id, statements: sortedStatements(expected) });
    }
  });

  test('each function has a role of its own, with the basic execution policy as its only managed policy and no inline policy', () => {
    const resources = template.toJSON().Resources as Record<string, Resource>;
    const roles = Object.keys(functions()).map(roleOf);
    expect(new Set(roles).size).toBe(roles.length);
    for (const roleId of roles) {
      const role = resources[roleId];
      expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
        { Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'lambda.amazonaws.com' } },
      ]);
      expect(role.Properties.ManagedPolicyArns).toEqual([
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] },
      ]);
      expect(role.Properties.Policies).toBeUndefined();
    }
  });

  test('every IAM policy in the stack belongs to one function role or one of the two scheduler roles', () => {
    const stack = Stack.of(stacks.stateless);
    const known = new Set([
      ...Object.keys(functions()).map(roleOf),
      stack.getLogicalId(stacks.stateless.webhooks.schedulerRole.node.defaultChild as any),
      stack.getLogicalId(stacks.stateless.reminders.schedulerRole.node.defaultChild as any),
    ]);
    const policies = Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>);
    for (const policy of policies) {
      expect(policy.Properties.Roles).toHaveLength(1);
      expect(known).toContain(policy.Properties.Roles[0].Ref);
    }
    expect(Object.keys(template.findResources('AWS::IAM::Role'))).toHaveLength(known.size);
    expect(template.findResources('AWS::IAM::ManagedPolicy')).toEqual({});
  });
});

describe('events and outbound webhooks (lib/constructs/webhooks.ts)', () => {
  test('design §Events: the table stream feeds the fanout with partial batch failures, bisection, bounded retries, a record age and an SQS on-failure destination', () => {
    const fanoutId = logicalId(stacks.stateless.webhooks.fanoutFunction);
    const failureQueueId = Stack.of(stacks.stateless).getLogicalId(stacks.stateless.webhooks.streamFailureQueue.node.defaultChild as any);
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping', {
      Properties: { FunctionName: { Ref: fanoutId } },
    }) as Record<string, Resource>);
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0].Properties;
    expect(mapping.EventSourceArn).toEqual(tableExport('StreamArn'));
    expect(mapping).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      DestinationConfig: { OnFailure: { Destination: arnOf(failureQueueId) } },
    });
    // Issue 12: write → delivery latency; no batching window holds records back.
    expect(mapping.MaximumBatchingWindowInSeconds ?? 0).toBe(0);
    expect(mapping.MaximumRetryAttempts).toBeGreaterThanOrEqual(0);
    expect(mapping.MaximumRetryAttempts).toBeLessThanOrEqual(10);
    expect(mapping.MaximumRecordAgeInSeconds).toBeGreaterThan(0);
  });

  test('design §Events: the fanout reads this table\'s stream only (no ListStreams on "*")', () => {
    const fanoutId = logicalId(stacks.stateless.webhooks.fanoutFunction);
    const stream = statementsOf(fanoutId).find((statement) => asList(statement.Action).includes('dynamodb:GetRecords'));
    expect(stream).toEqual({
      Effect: 'Allow',
      Action: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
      Resource: tableExport('StreamArn'),
    });
  });

  test('spec §6 delivery: the delivery queue feeds the worker with partial batch failures; its visibility timeout is at least 6x the 60 s function timeout (receiver 10 s + lease margin)', () => {
    const deliveryId = logicalId(stacks.stateless.webhooks.deliveryFunction);
    const queueId = Stack.of(stacks.stateless).getLogicalId(stacks.stateless.webhooks.deliveryQueue.node.defaultChild as any);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: deliveryId },
      EventSourceArn: arnOf(queueId),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const timeout = functions()[deliveryId].Properties.Timeout;
    expect(timeout).toBe(60);
    const queue = template.toJSON().Resources[queueId] as Resource;
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * timeout);
  });

  test('every consumer has a dead-letter path: the delivery queue redrives to a DLQ after 5 receives; the stream mapping has its failure queue', () => {
    const webhooks = stacks.stateless.webhooks;
    const stack = Stack.of(stacks.stateless);
    const deliveryQueue = template.toJSON().Resources[stack.getLogicalId(webhooks.deliveryQueue.node.defaultChild as any)] as Resource;
    expect(deliveryQueue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: arnOf(stack.getLogicalId(webhooks.deliveryDeadLetterQueue.node.defaultChild as any)),
      maxReceiveCount: 5,
    });
    expect(Object.keys(template.findResources('AWS::SQS::Queue'))).toHaveLength(3);
  });

  test('every queue is encrypted at rest and refuses requests without TLS', () => {
    const queues = template.findResources('AWS::SQS::Queue') as Record<string, Resource>;
    for (const [id, queue] of Object.entries(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled ?? queue.Properties.KmsMasterKeyId).toBeTruthy();
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  test('spec §3 retries: the scheduler role is assumable by EventBridge Scheduler only and may only sqs:SendMessage on the delivery queue', () => {
    const webhooks = stacks.stateless.webhooks;
    const stack = Stack.of(stacks.stateless);
    const roleId = stack.getLogicalId(webhooks.schedulerRole.node.defaultChild as any);
    const role = template.toJSON().Resources[roleId] as Resource;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'scheduler.amazonaws.com' } }),
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toBeUndefined();
    const statements = policyStatements().filter((entry) => entry.roles.includes(roleId));
    expect(statements.map((entry) => entry.statement)).toEqual([
      {
        Effect: 'Allow',
        Action: 'sqs:SendMessage',
        Resource: arnOf(stack.getLogicalId(webhooks.deliveryQueue.node.defaultChild as any)),
      },
    ]);
  });

  test('spec §3 retries: only the delivery worker creates schedules, in the retry group only, passing the scheduler role only; the webhooks API only enqueues', () => {
    const webhooks = stacks.stateless.webhooks;
    const stack = Stack.of(stacks.stateless);
    const groupId = stack.getLogicalId(webhooks.scheduleGroup);
    const roleArn = arnOf(stack.getLogicalId(webhooks.schedulerRole.node.defaultChild as any));
    const schedulers = [logicalId(webhooks.deliveryFunction)];
    const webhooksApi = functions()[groupFunctionId('webhooks')].Properties.Environment.Variables;
    expect(webhooksApi.DELIVERY_QUEUE_URL).toEqual({ Ref: stack.getLogicalId(webhooks.deliveryQueue.node.defaultChild as any) });
    for (const name of ['SCHEDULER_MODE', 'SCHEDULER_GROUP_NAME', 'SCHEDULER_ROLE_ARN', 'SCHEDULER_TARGET_ARN']) expect(webhooksApi[name]).toBeUndefined();
    for (const id of Object.keys(functions())) {
      const statements = statementsOf(id);
      // Schedules in the webhook retry group and the role they send with (file reminders have their own, below).
      const scheduling = statements.filter((statement) => asList(statement.Action).some((action: string) => action.startsWith('scheduler:')) && JSON.stringify(statement.Resource).includes(`"${groupId}"`));
      const passRole = statements.filter((statement) => asList(statement.Action).includes('iam:PassRole') && JSON.stringify(statement.Resource) === JSON.stringify(roleArn));
      const variables = functions()[id].Properties.Environment.Variables;
      if (!schedulers.includes(id)) {
        expect(scheduling).toEqual([]);
        expect(passRole).toEqual([]);
        expect(variables.SCHEDULER_ROLE_ARN).toBeUndefined();
        continue;
      }
      expect(scheduling).toEqual([
        {
          Effect: 'Allow',
          Action: 'scheduler:CreateSchedule',
          Resource: {
            'Fn::Join': [
              '',
              [
                'arn:',
                { Ref: 'AWS::Partition' },
                ':scheduler:',
                { Ref: 'AWS::Region' },
                ':',
                { Ref: 'AWS::AccountId' },
                ':schedule/',
                { Ref: groupId },
                '/*',
              ],
            ],
          },
        },
      ]);
      expect(passRole).toEqual([
        {
          Effect: 'Allow',
          Action: 'iam:PassRole',
          Resource: roleArn,
          Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        },
      ]);
      expect(variables).toMatchObject({
        SCHEDULER_MODE: 'aws',
        SCHEDULER_GROUP_NAME: { Ref: groupId },
        SCHEDULER_ROLE_ARN: roleArn,
        SCHEDULER_TARGET_ARN: arnOf(stack.getLogicalId(webhooks.deliveryQueue.node.defaultChild as any)),
        DELIVERY_QUEUE_URL: { Ref: stack.getLogicalId(webhooks.deliveryQueue.node.defaultChild as any) },
      });
    }
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 2);
  });
});

describe('file reminders (lib/constructs/reminders.ts)', () => {
  const ids = () => {
    const reminders = stacks.stateless.reminders;
    const stack = Stack.of(stacks.stateless);
    return {
      groupId: stack.getLogicalId(reminders.scheduleGroup),
      roleId: stack.getLogicalId(reminders.schedulerRole.node.defaultChild as any),
      targetId: logicalId(reminders.targetFunction),
    };
  };

  test('resources.md §9.2: the reminder scheduler role is assumable by EventBridge Scheduler for the reminder group only and may only invoke scheduler-target', () => {
    const { groupId, roleId, targetId } = ids();
    const role = template.toJSON().Resources[roleId] as Resource;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } }, ArnEquals: { 'aws:SourceArn': { 'Fn::GetAtt': [groupId, 'Arn'] } } },
      },
    ]);
    expect(policyStatements().filter((entry) => entry.roles.includes(roleId)).map((entry) => entry.statement)).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: arnOf(targetId) },
    ]);
  });

  test('the sweep: a rate(5 minutes) schedule in the reminder group invokes scheduler-target with {kind: "sweep"} (reminders and webhook deliveries), which may send on the delivery queue', () => {
    const { groupId, roleId, targetId } = ids();
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      GroupName: { Ref: groupId },
      ScheduleExpression: 'rate(5 minutes)',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: Match.absent(),
      Target: { Arn: arnOf(targetId), RoleArn: arnOf(roleId), Input: JSON.stringify({ kind: 'sweep' }) },
    });
    const deliveryQueueId = Stack.of(stacks.stateless).getLogicalId(stacks.stateless.webhooks.deliveryQueue.node.defaultChild as any);
    expect(functions()[targetId].Properties.Environment.Variables.DELIVERY_QUEUE_URL).toEqual({ Ref: deliveryQueueId });
    template.resourceCountIs('AWS::Scheduler::Schedule', 1);
    template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: Match.stringLikeRegexp('-reminders$') });
  });

  test('only the mortgage-files API manages reminder schedules, with the settings it reads (SCHEDULER_MODE defaults to aws)', () => {
    const { groupId, roleId, targetId } = ids();
    const mortgageFiles = groupFunctionId('mortgage-files');
    expect(functions()[mortgageFiles].Properties.Environment.Variables).toMatchObject({
      REMINDER_SCHEDULE_GROUP: { Ref: groupId },
      REMINDER_SCHEDULER_ROLE_ARN: arnOf(roleId),
      REMINDER_TARGET_ARN: arnOf(targetId),
    });
    for (const id of Object.keys(functions())) {
      const managesReminders = statementsOf(id).some((statement) => JSON.stringify(statement.Resource).includes(`"${groupId}"`) || JSON.stringify(statement.Resource) === JSON.stringify(arnOf(roleId)));
      expect({ id, managesReminders }).toEqual({ id, managesReminders: id === mortgageFiles });
      if (id !== mortgageFiles) expect(functions()[id].Properties.Environment.Variables.REMINDER_SCHEDULE_GROUP).toBeUndefined();
    }
    expect(functions()[targetId].Properties.Timeout).toBe(60);
  });
});

describe('lead intake (lib/constructs/intake.ts)', () => {
  test('spec §4: the direct intake address is a Function URL with AuthType NONE and no CORS (browsers are not supported)', () => {
    const intakeId = logicalId(stacks.stateless.intake.intakeFunction);
    const urls = Object.values(template.findResources('AWS::Lambda::Url') as Record<string, Resource>);
    expect(urls).toHaveLength(1);
    expect(urls[0].Properties).toEqual({ AuthType: 'NONE', TargetFunctionArn: arnOf(intakeId) });
  });

  test('operator contract: API URL, intake URLs and table name are stack outputs', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'IntakeUrl', 'IntakeDirectUrl', 'TableName']));
    const apiId = Stack.of(stacks.stateless).getLogicalId(stacks.stateless.httpApi.api.node.defaultChild as any);
    expect(outputs.ApiUrl.Value).toEqual({ 'Fn::GetAtt': [apiId, 'ApiEndpoint'] });
    expect(JSON.stringify(outputs.IntakeDirectUrl.Value)).toContain('FunctionUrl');
  });
});

describe('API throttling (lib/constructs/http-api.ts)', () => {
  test('the $default stage has a default throttle, so a flood is refused by API Gateway before it takes Lambda concurrency', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: API_RATE_LIMIT, ThrottlingBurstLimit: API_BURST_LIMIT }),
    });
  });
});

describe('alarms (lib/constructs/alarms.ts)', () => {
  const alarms = () => Object.values(template.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>).map((alarm) => alarm.Properties);
  const topicId = () => Stack.of(stacks.stateless).getLogicalId(stacks.stateless.alarms.topic.node.defaultChild as any);

  test('one SNS topic (TLS only, encrypted) gets every alarm and its recovery; -c alarmEmail subscribes an address', () => {
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: topicId() } });
    expect(alarms().length).toBeGreaterThan(0);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.OKActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.TreatMissingData).toBe('notBreaching');
    }
  });

  test('a message in either dead-letter queue, events lagging 5 minutes, any function error or throttle, and API 5xx are alarms', () => {
    const stack = Stack.of(stacks.stateless);
    const queueName = (queue: IConstruct) => ({ 'Fn::GetAtt': [stack.getLogicalId(queue.node.defaultChild as any), 'QueueName'] });
    const on = (metric: string, dimension: unknown) => alarms().filter((alarm) => alarm.MetricName === metric && JSON.stringify(alarm.Dimensions).includes(JSON.stringify(dimension)));
    for (const queue of [stacks.stateless.webhooks.deliveryDeadLetterQueue, stacks.stateless.webhooks.streamFailureQueue]) {
      expect(on('ApproximateNumberOfMessagesVisible', queueName(queue))).toEqual([expect.objectContaining({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' })]);
    }
    const fanout = { Ref: logicalId(stacks.stateless.webhooks.fanoutFunction) };
    expect(on('IteratorAge', fanout)).toEqual([expect.objectContaining({ Threshold: 300_000, Statistic: 'Maximum' })]);
    for (const id of Object.keys(functions())) {
      expect(on('Errors', { Ref: id })).toHaveLength(1);
      expect(on('Throttles', { Ref: id })).toHaveLength(1);
    }
    expect(alarms().filter((alarm) => alarm.MetricName === '5xx' && alarm.Namespace === 'AWS/ApiGateway')).toHaveLength(1);
  });
});

describe('cdk-nag AwsSolutions checks', () => {
  test('no unacknowledged AwsSolutions finding in either stack', () => {
    // The very rule pack bin/app.ts registers, run again to list what it finds.
    expect(stacks.nagChecks).toBeInstanceOf(AwsSolutionsChecks);
    const report = stacks.nagChecks.validateScope(app);
    const findings = report.violations.map(
      (violation) => `${violation.ruleName} at ${violation.violatingResources.map((resource) => resource.constructPath ?? resource.resourceLogicalId).join(', ')}`,
    );
    expect(findings).toEqual([]);
    expect(report.success).toBe(true);
  });

  test('every acknowledgment names its rule and carries a real reason', () => {
    const acknowledgments: Array<{ id: string; reason: string }> = [];
    for (const construct of app.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, value] of Object.entries(entry.data as Record<string, any>)) {
          acknowledgments.push({ id, reason: typeof value === 'string' ? value : value?.reason ?? '' });
        }
      }
    }
    expect(acknowledgments.length).toBeGreaterThan(0);
    for (const acknowledgment of acknowledgments) {
      expect(acknowledgment.id).toMatch(/AwsSolutions-[A-Z]+\d+/);
      expect(acknowledgment.reason.length).toBeGreaterThan(40);
    }
  });
});
