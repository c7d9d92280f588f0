import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { toLambdaRecord } from '../../local/stream-poller';
import { localDynamoClient } from '../../local/table';

/** Every record of the table's stream so far, read through the real Streams API, as Lambda gets them. */
export async function readStreamRecords(endpoint: string, tableName: string): Promise<DynamoDBRecord[]> {
  const dynamoDb = localDynamoClient(endpoint);
  const streams = new DynamoDBStreamsClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  try {
    const table = await dynamoDb.send(new DescribeTableCommand({ TableName: tableName }));
    const streamArn = table.Table!.LatestStreamArn!;
    const description = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const records: DynamoDBRecord[] = [];
    for (const shard of description.StreamDescription?.Shards ?? []) {
      let iterator = (
        await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }))
      ).ShardIterator;
      while (iterator) {
        const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
        records.push(...(page.Records ?? []).map((record) => toLambdaRecord(record, streamArn)));
        if ((page.Records ?? []).length === 0) break;
        iterator = page.NextShardIterator;
      }
    }
    return records;
  } finally {
    dynamoDb.destroy();
    streams.destroy();
  }
}
