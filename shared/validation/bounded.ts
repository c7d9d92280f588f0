import * as z from 'zod';

/**
 * Domain bounds shared by every resource, so that no input can reach DynamoDB with a value it
 * cannot store (a 500) and every free-form object stays small and flat.
 */
export const MAX_AMOUNT = 1_000_000_000_000;
export const FREE_FORM_MAX_KEYS = 100;
export const FREE_FORM_MAX_KEY_LENGTH = 64;
export const FREE_FORM_MAX_STRING_LENGTH = 5_000;
/**
 * The whole object as UTF-8 JSON: 100 values of 5,000 characters would be up to 2 MB, past
 * DynamoDB's 400 KB item (the database's refusal would be a 500); with it a lead with every field at
 * its limit stays under 300 KB. The file's custom field values have the same bound.
 */
export const FREE_FORM_MAX_BYTES = 131_072;
/** DynamoDB stores magnitudes from 1e-130; the document client refuses integers beyond 2^53. */
const SMALLEST_STORABLE_MAGNITUDE = 1e-130;

/** Exact: the number is its own rounding to agorot (1e-200 is not, nor 10.123). */
const hasAtMostTwoDecimals = (value: number) => Number(value.toFixed(2)) === value;

/** An amount in ILS: finite, 0 <= x <= 1e12, at most 2 decimal places. */
export const amountSchema = () =>
  z
    .number({ error: 'must be a number' })
    .finite()
    .min(0, 'must be at least 0')
    .max(MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
    .refine(hasAtMostTwoDecimals, 'must have at most 2 decimal places')
    .describe('An amount in ILS with at most 2 decimal places');

/** A signed amount (a bank balance): finite, within [min, MAX_AMOUNT], at most 2 decimals. */
export const signedAmountSchema = (min: number) =>
  z
    .number({ error: 'must be a number' })
    .finite()
    .min(min, `must be at least ${min}`)
    .max(MAX_AMOUNT, `must be at most ${MAX_AMOUNT}`)
    .refine(hasAtMostTwoDecimals, 'must have at most 2 decimal places')
    .describe('An amount in ILS with at most 2 decimal places');

/** A whole number within [min, max]. */
export const integerSchema = (min: number, max: number) =>
  z.number({ error: 'must be a number' }).int('must be an integer').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

/** Any number DynamoDB can store exactly as sent (used where a free-form object holds numbers). */
export function isStorableNumber(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const magnitude = Math.abs(value);
  if (magnitude > Number.MAX_SAFE_INTEGER) return false;
  return magnitude === 0 || magnitude >= SMALLEST_STORABLE_MAGNITUDE;
}

const storableNumber = z.number().refine(isStorableNumber, 'is not a storable number');

const freeFormValue = z.union([
  z.string().max(FREE_FORM_MAX_STRING_LENGTH, `must be at most ${FREE_FORM_MAX_STRING_LENGTH} characters`),
  storableNumber,
  z.boolean(),
  z.null(),
], { error: 'must be a string, a number, a boolean or null' });

/**
 * A flat free-form object (for example `custom_fields`): at most 100 string keys of at most 64
 * characters, each to a string (at most 5,000 characters), a number, a boolean or null; at most
 * `FREE_FORM_MAX_BYTES` in all.
 */
export const freeFormObjectSchema = () =>
  z
    .record(
      z.string().min(1, 'keys must not be empty').max(FREE_FORM_MAX_KEY_LENGTH, `keys must be at most ${FREE_FORM_MAX_KEY_LENGTH} characters`),
      freeFormValue,
    )
    .refine((value) => Object.keys(value).length <= FREE_FORM_MAX_KEYS, `must have at most ${FREE_FORM_MAX_KEYS} keys`)
    .refine((value) => Buffer.byteLength(JSON.stringify(value), 'utf8') <= FREE_FORM_MAX_BYTES, `must take at most ${FREE_FORM_MAX_BYTES} bytes as JSON`);
