import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  globalIndexSpecifications,
  STRING_KEY_ATTRIBUTES,
  TABLE_PARTITION_KEY,
  TABLE_SORT_KEY,
  TTL_ATTRIBUTE,
} from '../shared/storage/table-definition';

export function localDynamoClient(endpoint: string, region = 'us-east-1'): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
}

/** Creates the table from the shared definition (the one CDK deploys) when it is missing. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localDynamoClient(endpoint);
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: STRING_KEY_ATTRIBUTES.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: TABLE_PARTITION_KEY, KeyType: 'HASH' },
          { AttributeName: TABLE_SORT_KEY, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: globalIndexSpecifications(),
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  } finally {
    client.destroy();
  }
}
