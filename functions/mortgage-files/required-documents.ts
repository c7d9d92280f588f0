import * as z from 'zod';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { ok } from '../../shared/http/response';
import { readChildren } from '../../shared/resources/child-collection';
import { ordered, requireFamily, siblingsOf } from '../../shared/resources/child-entity';
import type { StoredRecord } from '../../shared/resources/entity';
import { DEFAULT_DOCUMENT_STATUS, documentStatusChild, documentStatusSchema } from './document-status.child';
import { mortgageFileEntity, requireFileOfPath } from './mortgage-file.entity';
import { requirementPart } from './requirement.part';

/**
 * `GET /mortgage-files/{id}/required-documents` (resources.md §9.8): the file's requirements, each
 * with the document-status rows linked to it (§9.9), and the rows linked to none. The file with its
 * requirements (one Query) and its document statuses (one Query) are read in parallel; a requirement
 * is dismissed when its newest linked row is `dismissed` (computed here, never stored).
 */
export const requiredDocumentSchema = z
  .object({
    id: z.uuid(),
    key: z.string(),
    label: z.string(),
    borrower_id: z.uuid().nullable(),
    status: documentStatusSchema.shape.status,
    document_status_id: z.uuid().nullable(),
    is_dismissed: z.boolean(),
    statuses: z.array(documentStatusSchema),
  })
  .meta({ id: 'RequiredDocument' });

const requiredDocumentsSchema = z
  .object({
    data: z.object({ requirements: z.array(requiredDocumentSchema), unlinked_statuses: z.array(documentStatusSchema) }),
    count: z.number().int().describe('The number of requirements returned'),
  })
  .meta({ id: 'RequiredDocuments' });

const querySchema = z.object({
  include_dismissed: z.enum(['true', 'false'], { error: 'must be true or false' }).optional().describe('List dismissed requirements and dismissed unlinked rows too'),
});

const newestFirst = (a: StoredRecord, b: StoredRecord) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

export async function readRequiredDocuments(organizationId: string, fileId: string, includeDismissed: boolean) {
  const [family, statuses] = await Promise.all([requireFamily(mortgageFileEntity, organizationId, fileId), readChildren(documentStatusChild, organizationId, fileId)]);
  const requirements = ordered(requirementPart, siblingsOf(family, requirementPart));
  const byRequirement = new Map<string, StoredRecord[]>();
  for (const row of [...statuses].sort(newestFirst)) {
    if (row.requirement_id) byRequirement.set(row.requirement_id as string, [...(byRequirement.get(row.requirement_id as string) ?? []), row]);
  }
  const answered = requirements.map((requirement) => {
    const linked = byRequirement.get(requirement.id) ?? [];
    const newest = linked[0];
    const status = (newest?.status as string | undefined) ?? DEFAULT_DOCUMENT_STATUS;
    return {
      id: requirement.id,
      key: requirement.key,
      label: requirement.label,
      borrower_id: requirement.borrower_id ?? null,
      status,
      document_status_id: newest?.id ?? null,
      is_dismissed: status === 'dismissed',
      statuses: linked,
    };
  });
  const requirementIds = new Set(requirements.map((requirement) => requirement.id));
  // Unmatched: no requirement, or one that no longer exists (a removed borrower's).
  const unlinked = [...statuses].sort(newestFirst).filter((row) => !row.requirement_id || !requirementIds.has(row.requirement_id as string));
  return {
    requirements: answered.filter((requirement) => includeDismissed || !requirement.is_dismissed),
    unlinked_statuses: unlinked.filter((row) => includeDismissed || row.status !== 'dismissed'),
  };
}

export const requiredDocumentOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/mortgage-files/{id}/required-documents',
    operationId: 'listRequiredDocuments',
    summary: "The file's required documents with their linked document statuses, and the statuses linked to none (unpaged)",
    query: querySchema,
    response: { status: 200, description: 'Requirements and unlinked statuses; count is the number of requirements returned', schema: requiredDocumentsSchema },
    errors: [400, 404],
    requirePath: requireFileOfPath,
    handle: async ({ auth, params, query }) => {
      const data = await readRequiredDocuments(auth.organizationId, params.id, (query as z.infer<typeof querySchema>).include_dismissed === 'true');
      return ok({ data, count: data.requirements.length });
    },
  }),
];
