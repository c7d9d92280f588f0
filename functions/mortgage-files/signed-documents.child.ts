import * as z from 'zod';
import { childOperations, defineChild, type ChildDefinition } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { listValue } from '../../shared/validation/fields';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * A file's signatures and generated documents (resources.md §9.12): read-only. The app's signing and
 * generation flows fill them (rows `SIGNATURE#<id>` and `GENERATED_DOCUMENT#<id>` in the file's
 * partition); the API has no write path, so their lists may be empty. Only the declared fields are
 * read from an item: signature images, signature drafts, file contents and storage keys the flows
 * keep on the same item are never returned.
 */
const dateTime = z.iso.datetime({ offset: true });

export const SIGNATURE_TYPE = 'SIGNATURE';
export const GENERATED_DOCUMENT_TYPE = 'GENERATED_DOCUMENT';

export const signatureSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    document_id: z.uuid().nullable(),
    signer_name: z.string().nullable(),
    status: listValue('signature-statuses'),
    requested_at: dateTime.nullable(),
    signed_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Signature' });

export const generatedDocumentSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    name: z.string().nullable(),
    template_key: z.string().nullable(),
    document_id: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'GeneratedDocument' });

/** Exactly the record's fields; `updated_at` is the creation time when a flow did not write one. */
const declared = (schema: z.ZodObject) => (records: StoredRecord[]) =>
  records.map((record) => Object.fromEntries(Object.keys(schema.shape).map((field) => [field, field === 'updated_at' ? (record.updated_at ?? record.created_at) : (record[field] ?? null)])) as StoredRecord);

function readOnlyChild(definition: Pick<ChildDefinition, 'type' | 'label' | 'entity' | 'segment' | 'itemParam' | 'names'>, record: z.ZodObject, listId: string): ChildDefinition {
  return defineChild({
    ...definition,
    parent: mortgageFileEntity,
    parentIdField: 'mortgage_file_id',
    schemas: { create: z.object({}), update: z.object({}), record, list: z.object({ data: z.array(record), count: z.number().int() }).meta({ id: listId }) },
    fields: Object.keys(record.shape).filter((field) => !['id', 'organization_id', 'mortgage_file_id', 'created_at', 'updated_at'].includes(field)),
    methods: ['list', 'get'],
    build: () => ({}),
    change: () => ({}),
    present: declared(record),
  });
}

export const signatureChild = readOnlyChild(
  { type: SIGNATURE_TYPE, label: 'Signature', entity: 'signature', segment: 'signatures', itemParam: 'signatureId', names: { singular: 'signature', plural: 'signatures' } },
  signatureSchema,
  'SignatureList',
);

export const generatedDocumentChild = readOnlyChild(
  {
    type: GENERATED_DOCUMENT_TYPE,
    label: 'Generated document',
    entity: 'generated_document',
    segment: 'generated-documents',
    itemParam: 'generatedId',
    names: { singular: 'generatedDocument', plural: 'generatedDocuments' },
  },
  generatedDocumentSchema,
  'GeneratedDocumentList',
);

export const signatureOperations = childOperations(signatureChild);
export const generatedDocumentOperations = childOperations(generatedDocumentChild);
