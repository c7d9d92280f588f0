import { ApiError } from '../../shared/http/errors';
import { isUuid } from '../../shared/ids';
import { referenceKeys } from '../../shared/storage/keys';
import { batchGetAll } from '../../shared/storage/paginated-requests';

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
  // Consistent: a record created a moment ago is a valid source.
  const found = await batchGetAll([referenceKeys.leadSource(organizationId, id), referenceKeys.contact(organizationId, id), referenceKeys.customer(organizationId, id)], {
    consistentRead: true,
    projection: 'pk',
  });
  if (found.length === 0) throw new InvalidLeadSourceError();
}
