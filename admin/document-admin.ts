import { ApiError } from '../shared/http/errors';
import { isUuid } from '../shared/ids';
import { planPartCreate, readFamily } from '../shared/resources/child-entity';
import { WriteBatch } from '../shared/resources/write-batch';
import { getTableName } from '../shared/storage/dynamo-client';
import { entityKeys } from '../shared/storage/keys';
import { CONTENT_TYPE_PATTERN, DEFAULT_CONTENT_TYPE, documentPart, documentSchema } from '../functions/mortgage-files/document.part';
import { findFileOrganization, mortgageFileEntity } from '../functions/mortgage-files/mortgage-file.entity';
import { KEY_MAX, TITLE_MAX } from '../shared/validation/fields';
import { AdminInputError } from './admin-error';

/**
 * `mortgage-admin document add` (../shared/contract.md): the document record an upload in the app
 * would create (resources.md §9.12), written into the file's partition. The file is named by its id
 * alone: its pointer item gives the organization (one GetItem), then the file and its parts are read
 * (one Query) to check the requirement and the borrower, and the record is written in one
 * transaction that also checks that the file, the requirement and the borrower still exist.
 */
export interface AddDocumentInput {
  fileId: string;
  name: string;
  documentType: string;
  requirementId?: string;
  borrowerId?: string;
  contentType?: string;
  sizeBytes?: string;
}

/** The flag a field of the record comes from, for messages. */
const FLAG_OF_FIELD: Record<string, string> = {
  name: '--name',
  document_type: '--type',
  content_type: '--content-type',
  size_bytes: '--size-bytes',
  requirement_id: '--requirement',
  borrower_id: '--borrower',
};

function trimmed(flag: string, value: string, max: number): string {
  const text = value.trim();
  if (!text) throw new AdminInputError(`${flag} must not be empty`);
  if (text.length > max) throw new AdminInputError(`${flag} must be at most ${max} characters`);
  return text;
}

function sizeInBytes(value: string | undefined): number {
  if (value === undefined) return 0;
  const size = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(size)) throw new AdminInputError('--size-bytes must be a whole number of bytes, 0 or more');
  return size;
}

function reference(flag: string, what: string, value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!isUuid(value)) throw new AdminInputError(`${flag} ${value}: not ${what} of this mortgage file`);
  return value;
}

/** A refusal of the document's rules (a reference not of this file) in the words of the command line. */
function inFlagTerms(error: ApiError, given: Record<string, unknown>): AdminInputError {
  const details = error.options.details ?? error.error;
  const [field, ...rest] = details.split(': ');
  const flag = FLAG_OF_FIELD[field];
  if (!flag || rest.length === 0) return new AdminInputError(details);
  return new AdminInputError(`${flag}${given[field] === null || given[field] === undefined ? '' : ` ${given[field]}`}: ${rest.join(': ')}`);
}

export async function addDocument(input: AddDocumentInput): Promise<Record<string, unknown>> {
  const name = trimmed('--name', input.name, TITLE_MAX);
  const documentType = trimmed('--type', input.documentType, KEY_MAX);
  const contentType = input.contentType === undefined ? DEFAULT_CONTENT_TYPE : input.contentType.trim();
  if (!CONTENT_TYPE_PATTERN.test(contentType)) throw new AdminInputError('--content-type must be a media type such as application/pdf');
  const sizeBytes = sizeInBytes(input.sizeBytes);
  const requirementId = reference('--requirement', 'a requirement', input.requirementId);
  const borrowerId = reference('--borrower', 'a borrower', input.borrowerId);
  const values = { name, document_type: documentType, content_type: contentType, size_bytes: sizeBytes, requirement_id: requirementId, borrower_id: borrowerId };

  const notFound = () => new AdminInputError(`mortgage file ${input.fileId} not found`);
  const organizationId = isUuid(input.fileId) ? await findFileOrganization(input.fileId) : undefined;
  if (!organizationId) throw notFound();
  const family = await readFamily(mortgageFileEntity, organizationId, input.fileId);
  if (!family) throw notFound();

  const batch = new WriteBatch();
  // The file must still be there: a document is never left in the partition of a deleted file.
  batch.add(
    { ConditionCheck: { TableName: getTableName(), Key: entityKeys.record(mortgageFileEntity.type, organizationId, input.fileId), ConditionExpression: 'attribute_exists(pk)' } },
    notFound,
  );
  try {
    // No user uploads it (uploaded_by null). The file's answer does not show documents: its version stays.
    const record = await planPartCreate(documentPart, { organizationId, userId: null }, family, values, batch, false);
    await batch.commit();
    return Object.fromEntries(Object.keys(documentSchema.shape).map((field) => [field, record[field] ?? null]));
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw inFlagTerms(error, values);
    throw error;
  }
}
