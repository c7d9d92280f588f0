import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import {
  GLOBAL_INDEXES,
  globalIndexSpecifications,
  STRING_KEY_ATTRIBUTES,
  TABLE_PARTITION_KEY,
  TABLE_SORT_KEY,
  TTL_ATTRIBUTE,
} from '../shared/storage/table-definition';

export function localDynamoClient(endpoint: string, region = 'us-east-1'): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // A hung call to DynamoDB Local fails instead of stalling the local pollers for good.
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 },
  });
}

/**
 * A table on disk from an older version lacks the indexes added since: they are created one by
 * one (as a deployment would), and DynamoDB Local backfills them.
 */
async function addMissingIndexes(client: DynamoDBClient, tableName: string, present: string[]): Promise<void> {
  for (const index of globalIndexSpecifications().filter((candidate) => !present.includes(candidate.IndexName))) {
    const definition = GLOBAL_INDEXES.find((candidate) => candidate.indexName === index.IndexName)!;
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [definition.partitionKey, definition.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        GlobalSecondaryIndexUpdates: [{ Create: index }],
      }),
    );
  }
}

/** Creates the table from the shared definition (the one CDK deploys) when it is missing. */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const client = localDynamoClient(endpoint);
  try {
    const existing = await client.send(new DescribeTableCommand({ TableName: tableName }));
    await addMissingIndexes(client, tableName, existing.Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName!) ?? []);
    client.destroy();
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) {
      client.destroy();
      throw error;
    }
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
