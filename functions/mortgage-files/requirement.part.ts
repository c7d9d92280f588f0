import * as z from 'zod';
import { noUpdatableFields } from '../../shared/http/errors';
import { withVersion } from '../../shared/http/record-version';
import { newId, nowIso } from '../../shared/ids';
import { getFileSettings, type DocumentTemplate, type FileSettings, type MilestoneTemplate } from '../../shared/organizations/file-settings.repository';
import { definePart, newPartPut, siblingsOf, type Family } from '../../shared/resources/child-entity';
import type { StoredRecord } from '../../shared/resources/entity';
import type { WriteBatch } from '../../shared/resources/write-batch';
import { KEY_MAX, TITLE_MAX } from '../../shared/validation/fields';
import type { WriteContext } from '../../shared/write-context';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * A file's required documents (resources.md §9.8): one requirement per active required-document
 * template of the organization, made when the file is created — one per borrower where the template
 * is `per_borrower` (also for a borrower added later), otherwise one for the file (`borrower_id:
 * null`). A requirement copies the template's `key` and `label`, so deactivating or relabelling a
 * template never changes requirements that exist. Stored as a part of the file (in its partition,
 * removed with it); a borrower's requirements go with the borrower (borrower.part.ts).
 *
 * No routes of its own: `GET /required-documents` (required-documents.ts) answers from these rows.
 */
const dateTime = z.iso.datetime({ offset: true });

export const requirementSchema = z.object({
  id: z.uuid(),
  organization_id: z.uuid(),
  mortgage_file_id: z.uuid(),
  key: z.string(),
  label: z.string(),
  borrower_id: z.uuid().nullable(),
  created_at: dateTime,
  updated_at: dateTime,
});

const requirementInput = z.object({
  key: z.string().trim().min(1).max(KEY_MAX),
  label: z.string().trim().min(1).max(TITLE_MAX),
  borrower_id: z.uuid().nullable().optional(),
});

export const REQUIREMENT_TYPE = 'REQUIREMENT';

export const requirementPart = definePart({
  type: REQUIREMENT_TYPE,
  label: 'Requirement',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'required-documents',
  itemParam: 'requirementId',
  names: { singular: 'requirement', plural: 'requirements' },
  schemas: {
    create: requirementInput,
    update: requirementInput.partial(),
    record: requirementSchema,
    // No `meta` ids: no route answers with them (required-documents.ts has its own shape).
    list: z.object({ data: z.array(requirementSchema), count: z.number().int() }),
  },
  fields: ['key', 'label', 'borrower_id'],
  // Oldest first: the templates' order, per borrower in the order they were added.
  order: (a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1),
  build(input) {
    return { key: input.key, label: input.label, borrower_id: input.borrower_id ?? null };
  },
  change() {
    // A requirement is made from its template and never edited; document statuses track it (§9.9).
    throw noUpdatableFields();
  },
});

/** The settings each request reads once (a create retried after a version conflict reads no more). */
const settingsOfRequest = new WeakMap<WriteContext, Promise<FileSettings>>();

/**
 * The organization's active file settings, read once per request (one Query of the organization's
 * settings partition: document and milestone templates together, so a file create reads both in one
 * round trip). Start it early to read in parallel with the request's other reads; a read that fails
 * is reported where it is awaited.
 */
function activeSettings(context: WriteContext): Promise<FileSettings> {
  let settings = settingsOfRequest.get(context);
  if (!settings) {
    settings = getFileSettings(context.organizationId, { activeOnly: true });
    // Started before it is awaited: a request refused meanwhile must not leave an unhandled rejection.
    settings.catch(() => undefined);
    settingsOfRequest.set(context, settings);
  }
  return settings;
}

/** The organization's active required-document templates (§9.8), read once per request. */
export function activeDocumentTemplates(context: WriteContext): Promise<DocumentTemplate[]> {
  return handled(activeSettings(context).then((settings) => settings.documentTemplates));
}

/** The organization's active milestone templates (§9.7), from the same read. */
export function activeMilestoneTemplates(context: WriteContext): Promise<MilestoneTemplate[]> {
  return handled(activeSettings(context).then((settings) => settings.milestoneTemplates));
}

/** A read started early and awaited later: its failure is reported where it is awaited, never unhandled. */
function handled<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** The templates that make requirements of the file itself (`per_borrower: false`) or of each borrower. */
export const fileTemplates = (templates: DocumentTemplate[]) => templates.filter((template) => !template.per_borrower);
export const borrowerTemplates = (templates: DocumentTemplate[]) => templates.filter((template) => template.per_borrower);

/**
 * The puts of one requirement per template for the file (`borrowerId` null) or one of its borrowers,
 * added to `batch` (the file's or the borrower's transaction, so they are written with it or not at
 * all). They move no version: the transaction they join writes the file or moves its version. `family`
 * is updated to include them.
 */
export function planRequirements(context: WriteContext, family: Family, templates: DocumentTemplate[], borrowerId: string | null, batch: WriteBatch): StoredRecord[] {
  const now = nowIso();
  const records = templates.map((template) =>
    withVersion(
      {
        id: newId(),
        organization_id: context.organizationId,
        mortgage_file_id: family.parent.id,
        key: template.key,
        label: template.label,
        borrower_id: borrowerId,
        created_at: now,
        updated_at: now,
      } as StoredRecord,
      1,
    ),
  );
  for (const record of records) batch.add(newPartPut(requirementPart, record));
  if (records.length > 0) family.parts = new Map(family.parts).set(REQUIREMENT_TYPE, [...siblingsOf(family, requirementPart), ...records]);
  return records;
}
