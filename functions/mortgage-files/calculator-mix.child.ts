import * as z from 'zod';
import { badRequest, noUpdatableFields } from '../../shared/http/errors';
import { childOperations, defineChild } from '../../shared/resources/child-collection';
import { integerSchema } from '../../shared/validation/bounded';
import { listValue, NAME_MAX, text } from '../../shared/validation/fields';
import { positiveAmount } from './money';
import { mortgageFileEntity } from './mortgage-file.entity';

/**
 * A file's saved calculator mixes (resources.md §9.13): `data` is `{version: 2, mixes: [...]}`, one
 * to ten tracks, each validated field by field (unknown keys inside items and beside `version` and
 * `mixes` are dropped). `data` is replaced whole on update. No events.
 */
const dateTime = z.iso.datetime({ offset: true });
export const CALCULATOR_MIX_TYPE = 'CALCULATOR_MIX';
/** `data` as sent, measured as UTF-8 JSON (resources.md §9.13: ≤ 64 KB). */
export const MIX_DATA_MAX_BYTES = 65_536;

const hasAtMostThreeDecimals = (value: number) => Number(value.toFixed(3)) === value;

export const mixItemSchema = z
  .object({
    track: listValue('mix-tracks'),
    amount: positiveAmount(),
    years: integerSchema(4, 30),
    rate: z.number({ error: 'must be a number' }).min(0, 'must be at least 0').max(20, 'must be at most 20').refine(hasAtMostThreeDecimals, 'must have at most 3 decimal places').describe('Annual percent'),
    // Optional: an empty string is no value, as in every optional field (resources.md §1).
    index: z.preprocess((value) => (typeof value === 'string' && value.trim() === '' ? null : value), listValue('mix-indexes').nullable()).optional(),
  })
  .meta({ id: 'CalculatorMixItem' });

export const mixDataSchema = z
  .object(
    {
      version: z.literal(2, { error: 'must be 2' }),
      mixes: z.array(mixItemSchema, { error: 'must be an array of mix items' }).min(1, 'must have at least 1 item').max(10, 'must have at most 10 items'),
    },
    { error: 'must be an object {version: 2, mixes: [...]}' },
  )
  .meta({ id: 'CalculatorMixData' });

/** The size rule reads `data` as sent, before unknown keys are dropped. */
const sizedMixData = z
  .unknown()
  .refine((value) => value === undefined || value === null || Buffer.byteLength(JSON.stringify(value), 'utf8') <= MIX_DATA_MAX_BYTES, `must be at most ${MIX_DATA_MAX_BYTES} bytes as JSON`)
  .pipe(mixDataSchema);

export const calculatorMixSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    name: z.string().nullable(),
    data: mixDataSchema,
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'CalculatorMix' });

const createSchema = z.object({ name: text(NAME_MAX).nullable().optional(), data: sizedMixData }).meta({ id: 'CreateCalculatorMixRequest' });
const updateSchema = z.object({ name: text(NAME_MAX).nullable().optional(), data: sizedMixData.nullable().optional() }).meta({ id: 'UpdateCalculatorMixRequest' });

const nameOf = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

export const calculatorMixChild = defineChild({
  type: CALCULATOR_MIX_TYPE,
  label: 'Calculator mix',
  entity: 'calculator_mix',
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'calculator-mixes',
  itemParam: 'mixId',
  names: { singular: 'calculatorMix', plural: 'calculatorMixes' },
  schemas: {
    create: createSchema,
    update: updateSchema,
    record: calculatorMixSchema,
    list: z.object({ data: z.array(calculatorMixSchema), count: z.number().int() }).meta({ id: 'CalculatorMixList' }),
  },
  fields: ['name', 'data', 'created_by'],
  searchFields: ['name'],
  build(input, { context }) {
    return { name: nameOf(input.name), data: input.data, created_by: context.userId };
  },
  change(_current, input) {
    if (input.name === undefined && input.data === undefined) throw noUpdatableFields();
    if (input.data === null) throw badRequest('Validation failed', { details: 'data: cannot be cleared' });
    return { ...(input.name === undefined ? {} : { name: nameOf(input.name) }), ...(input.data === undefined ? {} : { data: input.data }) };
  },
});

export const calculatorMixOperations = childOperations(calculatorMixChild);
