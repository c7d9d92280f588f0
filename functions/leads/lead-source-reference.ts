import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '../../shared/http/errors';
import { isUuid } from '../../shared/ids';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { referenceKeys } from '../../shared/storage/keys';

/** A source that looks like a record id but is none of the organization's: 400 `Invalid source`. */
export class InvalidLeadSourceError extends ApiError {
  constructor() {
    super(400, 'Invalid source', { details: 'source references a record that does not exist in the organization' });
    this.name = 'InvalidLeadSourceError';
  }
}

/**
 * Spec §2 Lead `source`: free text, but a source that references a record (a UUID: a lead source,
 * contact or customer) must be one of the organization's. One BatchGetItem, only for UUID sources.
 */
export async function assertSourceBelongsToOrganization(organizationId: string, source: string | null | undefined): Promise<void> {
  if (!source || !isUuid(source.trim())) return;
  const id = source.trim().toLowerCase();
  const tableName = getTableName();
  const result = await getDocumentClient().send(
    new BatchGetCommand({
      RequestItems: {
        [tableName]: {
          Keys: [referenceKeys.leadSource(organizationId, id), referenceKeys.contact(organizationId, id), referenceKeys.customer(organizationId, id)],
          ProjectionExpression: 'pk',
        },
      },
    }),
  );
  if ((result.Responses?.[tableName] ?? []).length === 0) {
    throw new InvalidLeadSourceError();
  }
}
