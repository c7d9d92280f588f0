import * as z from 'zod';
import { noUpdatableFields, validationFailed as invalid } from '../../shared/http/errors';
import { definePart, partKey, partOperations, siblingsOf, type Family, type PartDefinition } from '../../shared/resources/child-entity';
import type { WriteBatch } from '../../shared/resources/write-batch';
import { KEY_MAX, recordId, TITLE_MAX } from '../../shared/validation/fields';
import { borrowerPart } from './borrower.part';
import { mortgageFileEntity } from './mortgage-file.entity';
import { requirementPart } from './requirement.part';

/**
 * A file's documents (resources.md §9.12): records of what the app's upload stored. The API only
 * reads them (`GET .../documents`, `GET .../documents/{documentId}`; every other method 405 `Allow:
 * GET`); the operator's `mortgage-admin document add` writes them. Stored as a part of the file (in
 * its partition, removed with it). Only the declared fields are read from an item: file contents and
 * storage keys are never returned.
 */
const dateTime = z.iso.datetime({ offset: true });

/** `type/subtype`, as in a Content-Type header without parameters. */
export const CONTENT_TYPE_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;
export const DEFAULT_CONTENT_TYPE = 'application/pdf';

export const documentSchema = z.object({
  id: z.uuid(),
  organization_id: z.uuid(),
  mortgage_file_id: z.uuid(),
  name: z.string(),
  document_type: z.string(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  requirement_id: z.uuid().nullable(),
  borrower_id: z.uuid().nullable(),
  uploaded_by: z.uuid().nullable(),
  created_at: dateTime,
  updated_at: dateTime,
}).meta({ id: 'Document' });

export const documentInput = z.object({
  name: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(TITLE_MAX, `must be at most ${TITLE_MAX} characters`),
  document_type: z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(KEY_MAX, `must be at most ${KEY_MAX} characters`),
  content_type: z.string({ error: 'must be a string' }).trim().regex(CONTENT_TYPE_PATTERN, 'must be a media type such as application/pdf').default(DEFAULT_CONTENT_TYPE),
  size_bytes: z.number({ error: 'must be a number' }).int('must be an integer').min(0, 'must be 0 or more').max(Number.MAX_SAFE_INTEGER).default(0),
  requirement_id: recordId('requirement').nullable().default(null),
  borrower_id: recordId('borrower').nullable().default(null),
});


/** A referenced part must still exist when the document is written (it may be removed meanwhile). */
function planStillThere(family: Family, part: PartDefinition, id: string, field: string, batch: WriteBatch): void {
  batch.requireExists(partKey(part, family.parent.organization_id, family.parent.id, id), () => invalid(`${field}: no longer exists`));
}

function parsedInput(input: Record<string, unknown>): z.infer<typeof documentInput> {
  const parsed = documentInput.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw invalid(`${issue.path.join('.')}: ${issue.message}`);
}

export const documentPart = definePart({
  type: 'DOCUMENT',
  label: 'Document',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'documents',
  itemParam: 'documentId',
  names: { singular: 'document', plural: 'documents' },
  // Create and update are the operator's (no route serves them): their inputs stay out of the OpenAPI components.
  schemas: {
    create: documentInput,
    update: documentInput.partial(),
    record: documentSchema,
    list: z.object({ data: z.array(documentSchema), count: z.number().int() }).meta({ id: 'DocumentList' }),
  },
  fields: ['name', 'document_type', 'content_type', 'size_bytes', 'requirement_id', 'borrower_id', 'uploaded_by'],
  /**
   * `requirement_id` and `borrower_id` must be this file's (resources.md §1 References). A document of
   * a borrower's requirement is that borrower's: `borrower_id` defaults to the requirement's and may
   * not name another borrower.
   */
  build(input, context, family, batch) {
    const values = parsedInput(input);
    let borrowerId = values.borrower_id;
    if (values.requirement_id !== null) {
      const requirement = siblingsOf(family, requirementPart).find((candidate) => candidate.id === values.requirement_id);
      if (!requirement) throw invalid('requirement_id: not a requirement of this mortgage file');
      const owner = requirement.borrower_id as string | null;
      if (owner !== null && borrowerId !== null && borrowerId !== owner) throw invalid("borrower_id: the requirement is another borrower's");
      borrowerId ??= owner;
      planStillThere(family, requirementPart, requirement.id, 'requirement_id', batch);
    }
    if (borrowerId !== null) {
      if (!siblingsOf(family, borrowerPart).some((borrower) => borrower.id === borrowerId)) throw invalid('borrower_id: not a borrower of this mortgage file');
      planStillThere(family, borrowerPart, borrowerId, 'borrower_id', batch);
    }
    return { ...values, borrower_id: borrowerId, uploaded_by: context.userId };
  },
  change() {
    // Read-only through the API (resources.md §9.12).
    throw noUpdatableFields();
  },
});

/** Read-only routes (resources.md §9.12): list (newest first, paged) and item. */
export const documentOperations = partOperations(documentPart, ['list', 'get']);
