import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { GLOBAL_INDEXES } from '../../shared/storage/table-definition';
import { functionBundleDirectory } from '../bundling/function-bundles';

export type TableAccess = 'read-only' | 'read-write';

const TABLE_READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'];
// ConditionCheckItem is the condition-only part of TransactWriteItems (uniqueness, counters).
const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:ConditionCheckItem',
];

export interface ServiceFunctionProps {
  /** Folder under `functions/` whose `handler.ts` this function runs. */
  functionFolder: string;
  description: string;
  /** @default 10 seconds: API calls are a few DynamoDB round trips. */
  timeout?: Duration;
  environment?: Record<string, string>;
}

/**
 * Every Lambda of the service, with the house defaults set once: Node.js 22 on ARM64, 1024 MB,
 * the function's minified esbuild bundle with its source map and static files (built by
 * lib/bundling/function-bundles.ts, the build the bundle-size test checks; the AWS SDK v3 clients
 * bundled in, so the deployed SDK is the tested one), X-Ray tracing and a log group with a retention.
 */
export class ServiceFunction extends LambdaFunction {
  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // Our own log group rather than the implicit one, which would keep logs forever.
    const logGroup = new LogGroup(scope, `${id}LogGroup`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    super(scope, id, {
      code: Code.fromAsset(functionBundleDirectory(props.functionFolder)),
      handler: 'index.handler',
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 1024,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment,
      },
    });

    Validations.of(this).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'AWSLambdaBasicExecutionRole only allows writing CloudWatch logs; it is the AWS-maintained minimum every Lambda needs.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only the X-Ray statement uses "*": PutTraceSegments and PutTelemetryRecords support no resource-level permissions.',
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'Node.js 22 is the runtime the service is built and tested against; moving to a newer one is a deliberate upgrade.',
      },
    );
  }

  /**
   * Access to the table and its indexes only, together with the TABLE_NAME the configuration
   * reads, so a function can never get one without the other. Explicit actions rather than
   * `grantReadWriteData`: no Scan, no stream or describe calls, and the indexes by name.
   */
  grantTable(table: ITable, access: TableAccess): void {
    this.addEnvironment('TABLE_NAME', table.tableName);
    const actions = access === 'read-write' ? [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS] : TABLE_READ_ACTIONS;
    this.addToRolePolicy(new PolicyStatement({ actions, resources: [table.tableArn] }));
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: GLOBAL_INDEXES.map((index) => `${table.tableArn}/index/${index.indexName}`),
      }),
    );
  }
}
