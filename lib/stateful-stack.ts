import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import {
  GLOBAL_INDEXES,
  TABLE_PARTITION_KEY,
  TABLE_SORT_KEY,
  TTL_ATTRIBUTE,
} from '../shared/storage/table-definition';

/**
 * What must outlive a deployment: the single table, built from the same definition the local
 * runtime and the tests create DynamoDB Local tables from. Kept apart from the functions so a
 * stateless change can never replace or delete data.
 */
export class StatefulStack extends Stack {
  readonly table: Table;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: TABLE_SORT_KEY, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The fanout derives events from old vs new images.
      stream: StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of GLOBAL_INDEXES) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        ...(index.include
          ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: index.include }
          : { projectionType: ProjectionType.ALL }),
      });
    }

    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'TABLE_NAME for `npx mortgage-admin --aws ...`',
    });
  }
}
