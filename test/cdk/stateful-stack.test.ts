import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { StatefulStack } from '../../lib/stateful-stack';
import { GLOBAL_INDEXES, globalIndexSpecifications, TABLE_PARTITION_KEY, TABLE_SORT_KEY, TTL_ATTRIBUTE } from '../../shared/storage/table-definition';

// The stateful stack has no functions, so it is built on its own here without any bundling.
// (Template schema validation and cdk-nag run on the whole app in service-app.test.ts.)
let template: Template;

beforeAll(() => {
  const app = new App({ builtinCloudFormationValidation: false });
  template = Template.fromStack(new StatefulStack(app, 'MortgageService-Stateful'));
});

function tableProperties(): Record<string, any> {
  const tables = Object.values(template.findResources('AWS::DynamoDB::Table'));
  expect(tables).toHaveLength(1);
  return tables[0].Properties;
}

describe('stateful stack: the single table built from shared/storage/table-definition.ts', () => {
  test('design §Storage: one on-demand table keyed by string pk/sk', () => {
    const table = tableProperties();
    expect(table.KeySchema).toEqual([
      { AttributeName: TABLE_PARTITION_KEY, KeyType: 'HASH' },
      { AttributeName: TABLE_SORT_KEY, KeyType: 'RANGE' },
    ]);
    expect(table.BillingMode).toBe('PAY_PER_REQUEST');
    expect(table.ProvisionedThroughput).toBeUndefined();
  });

  test('design §Storage: every GSI of the definition exists with its keys and projection (ALL or INCLUDE with the listed attributes)', () => {
    const table = tableProperties();
    // The same specification the local table is created from (shared/storage/table-definition.ts).
    const expected = globalIndexSpecifications();
    expect(table.GlobalSecondaryIndexes).toEqual(expected);
    // Search reads little: the search index carries only what search needs.
    const search = table.GlobalSecondaryIndexes.find((index: any) => index.IndexName === 'gsi3');
    expect(search.Projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: ['search_text', 'status'] });
  });

  test('design §Storage: every key attribute is declared as a string, and nothing else is', () => {
    const table = tableProperties();
    const keyAttributes = [TABLE_PARTITION_KEY, TABLE_SORT_KEY, ...GLOBAL_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey])];
    expect(table.AttributeDefinitions).toEqual(keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })));
  });

  test('design §Events: the stream carries NEW_AND_OLD_IMAGES, so events are derived from old vs new image', () => {
    expect(tableProperties().StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
  });

  test('spec §8 retention: expires_at is the TTL attribute (write log, intake log, deliveries, replays)', () => {
    expect(TTL_ATTRIBUTE).toBe('expires_at');
    expect(tableProperties().TimeToLiveSpecification).toEqual({ AttributeName: 'expires_at', Enabled: true });
  });

  test('data safety: point-in-time recovery, deletion protection, and the table is retained when the stack goes', () => {
    const table = tableProperties();
    expect(table.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(table.DeletionProtectionEnabled).toBe(true);
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  test('operator contract: the table name is a stack output (TABLE_NAME for mortgage-admin --aws)', () => {
    template.hasOutput('TableName', { Value: { Ref: Match.stringLikeRegexp('^Table') } });
  });
});
