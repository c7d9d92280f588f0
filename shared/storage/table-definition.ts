/**
 * The single table, described once: CDK builds the deployed table from it and the local runtime
 * and tests create the DynamoDB Local table from it, so the two can never drift apart.
 */
export interface IndexDefinition {
  indexName: string;
  partitionKey: string;
  sortKey: string;
  /** Non-key attributes copied into the index; `undefined` means every attribute. */
  include?: string[];
}

export const TABLE_PARTITION_KEY = 'pk';
export const TABLE_SORT_KEY = 'sk';
export const TTL_ATTRIBUTE = 'expires_at';

export const GLOBAL_INDEXES: IndexDefinition[] = [
  // Collections of an organization (leads, users, keys...), newest first by `<created_at>#<id>`.
  { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  // The same collections narrowed by one filter value (for example a lead status).
  { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  // Search: only the lowercased search text and the filter values, so a search reads little.
  { indexName: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk', include: ['search_text', 'status'] },
  // Normalized phone (E.164) lookups for duplicate matching.
  { indexName: 'gsi4', partitionKey: 'gsi4pk', sortKey: 'gsi4sk', include: ['lead_number', 'id'] },
  // Lowercased email lookups for duplicate matching.
  { indexName: 'gsi5', partitionKey: 'gsi5pk', sortKey: 'gsi5sk', include: ['lead_number', 'id'] },
  // Search and filters of every resource declared on the shared machinery: only the lowercased
  // search text and a map of the filter values, whatever the resource.
  { indexName: 'gsi6', partitionKey: 'gsi6pk', sortKey: 'gsi6sk', include: ['search_text', 'list_filters'] },
];

export const STRING_KEY_ATTRIBUTES = [
  TABLE_PARTITION_KEY,
  TABLE_SORT_KEY,
  ...GLOBAL_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
];

/**
 * The indexes in the DynamoDB API's own shape (CreateTable's GlobalSecondaryIndexes, which is
 * also CloudFormation's): the local table is created from it, and the CDK tests compare the
 * synthesized table against it.
 */
export function globalIndexSpecifications() {
  return GLOBAL_INDEXES.map((index) => ({
    IndexName: index.indexName,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: index.include
      ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: index.include }
      : { ProjectionType: 'ALL' as const },
  }));
}
