import { gunzipSync, gzipSync } from 'node:zlib';
import * as z from 'zod';
import { badRequest, noUpdatableFields } from '../../shared/http/errors';
import { childOperations, defineChild } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import { listValue, text, TITLE_MAX } from '../../shared/validation/fields';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * A file's saved analyses (resources.md §9.14). `analysis_data` is any JSON object whose UTF-8 JSON
 * (`JSON.stringify`) is at most 262,144 bytes; larger → 400. It is stored gzipped in one Binary
 * attribute (`analysis_data_gzip`) and inflated on read: a DynamoDB item holds at most 400 KB, and
 * even incompressible 256 KB of JSON gzips to 256 KB plus a few dozen bytes, so the item (with its
 * title and other attributes, under 2 KB) always fits, and typical JSON costs a fraction of the
 * write and read capacity. Stored as an opaque blob, its numbers, keys and nesting never meet
 * DynamoDB's own limits (32 levels of maps, number range). Nesting is limited to 100 levels (deeper
 * input → 400) so that measuring and answering it can never exhaust the stack. Keys `__proto__`,
 * `constructor`, `prototype` are dropped at any depth when the body is read. Replaced whole on update.
 * A list page of large analyses holds fewer than `limit`, as every page does past 5 MB of answer
 * (`PAGE_MAX_BYTES`, response.ts).
 */
const dateTime = z.iso.datetime({ offset: true });
export const ANALYSIS_TYPE = 'ANALYSIS';
export const ANALYSIS_DATA_MAX_BYTES = 262_144;
export const ANALYSIS_DATA_MAX_DEPTH = 100;
const GZIP_ATTRIBUTE = 'analysis_data_gzip';

/** The nesting depth of a JSON value, counted without recursion (an object of scalars is 1). */
function depthWithin(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return false;
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return true;
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

export const analysisDataSchema = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
  .refine((value) => depthWithin(value, ANALYSIS_DATA_MAX_DEPTH), { message: `must be nested at most ${ANALYSIS_DATA_MAX_DEPTH} levels deep`, abort: true })
  .refine((value) => jsonBytes(value) <= ANALYSIS_DATA_MAX_BYTES, `must be at most ${ANALYSIS_DATA_MAX_BYTES} bytes as UTF-8 JSON`)
  .describe(`A JSON object of at most ${ANALYSIS_DATA_MAX_BYTES} bytes (UTF-8 JSON.stringify)`);

export const analysisSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    title: z.string().nullable(),
    analysis_type: listValue('analysis-types'),
    analysis_data: z.record(z.string(), z.unknown()),
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Analysis' });

const createSchema = z
  .object({ title: text(TITLE_MAX).nullable().optional(), analysis_type: listValue('analysis-types').nullable().optional(), analysis_data: analysisDataSchema })
  .meta({ id: 'CreateAnalysisRequest' });
const updateSchema = z
  .object({ title: text(TITLE_MAX).nullable().optional(), analysis_type: listValue('analysis-types').nullable().optional(), analysis_data: analysisDataSchema.nullable().optional() })
  .meta({ id: 'UpdateAnalysisRequest' });

const DEFAULT_ANALYSIS_TYPE = 'other';
const titleOf = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

export const analysisChild = defineChild({
  type: ANALYSIS_TYPE,
  label: 'Analysis',
  entity: 'analysis',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'analyses',
  itemParam: 'analysisId',
  names: { singular: 'analysis', plural: 'analyses' },
  schemas: {
    create: createSchema,
    update: updateSchema,
    record: analysisSchema,
    list: z.object({ data: z.array(analysisSchema), count: z.number().int() }).meta({ id: 'AnalysisList' }),
  },
  fields: ['title', 'analysis_type', 'analysis_data', 'created_by'],
  filters: { analysis_type: listValue('analysis-types') },
  searchFields: ['title'],
  build(input, { context }) {
    return { title: titleOf(input.title), analysis_type: input.analysis_type ?? DEFAULT_ANALYSIS_TYPE, analysis_data: input.analysis_data, created_by: context.userId };
  },
  change(_current, input) {
    if (input.title === undefined && input.analysis_type === undefined && input.analysis_data === undefined) throw noUpdatableFields();
    if (input.analysis_data === null) throw badRequest('Validation failed', { details: 'analysis_data: cannot be cleared' });
    return {
      ...(input.title === undefined ? {} : { title: titleOf(input.title) }),
      ...(input.analysis_type === undefined ? {} : { analysis_type: input.analysis_type ?? DEFAULT_ANALYSIS_TYPE }),
      ...(input.analysis_data === undefined ? {} : { analysis_data: input.analysis_data }),
    };
  },
  storage: {
    encode(record: StoredRecord) {
      const { analysis_data: data, ...rest } = record;
      return { ...rest, [GZIP_ATTRIBUTE]: gzipSync(Buffer.from(JSON.stringify(data ?? {}), 'utf8')) };
    },
    decode(item) {
      const { [GZIP_ATTRIBUTE]: packed, ...rest } = item;
      const analysisData = packed instanceof Uint8Array ? JSON.parse(gunzipSync(packed).toString('utf8')) : {};
      return { ...rest, analysis_data: analysisData };
    },
  },
});

export const analysisOperations = childOperations(analysisChild);
