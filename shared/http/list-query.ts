import * as z from 'zod';

/**
 * Paging and search rules shared by every list (spec §4 "Common list query parameters", "Search").
 */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
export const MAX_OFFSET = 1_000_000;
export const MAX_SEARCH_LENGTH = 100;

function pagingValue(raw: string | undefined, fallback: number, max: number, min: number): number {
  if (raw === undefined || raw.trim() === '' || !/^\d+$/.test(raw.trim())) return fallback;
  const value = Number(raw.trim());
  if (!Number.isSafeInteger(value) && value > max) return max;
  if (value < min) return fallback;
  return Math.min(value, max);
}

export interface Paging {
  limit: number;
  offset: number;
}

/** Negative or non-numeric values fall back to the default; values above the maximum are capped. */
export function parsePaging(query: Record<string, string | undefined>): Paging {
  return {
    limit: pagingValue(query.limit, DEFAULT_LIMIT, MAX_LIMIT, 1),
    offset: pagingValue(query.offset, 0, MAX_OFFSET, 0),
  };
}

const REMOVED_SEARCH_CHARACTERS = /[,()%_\\"'*]/g;
/** Between the fields of a search text: a term never matches across two fields (spec §4: a match within a field). */
const SEARCH_SEPARATOR = '\u0001';

/**
 * The removed characters go, the term is cut to 100 characters and lowercased for the
 * case-insensitive substring match. An empty result means "no search".
 */
export function sanitizeSearchTerm(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  // Characters, as every length of the API is counted: an emoji is one, never cut in half.
  const cleaned = Array.from(raw.replace(REMOVED_SEARCH_CHARACTERS, '')).slice(0, MAX_SEARCH_LENGTH).join('').trim().toLowerCase();
  if (cleaned.length === 0) return undefined;
  // No field holds the separator (buildSearchText drops it from values), so a term with it matches
  // nothing; a doubled separator never occurs in a search text, where it would match across fields.
  return cleaned.includes(SEARCH_SEPARATOR) ? SEARCH_SEPARATOR.repeat(2) : cleaned;
}

/** The lowercased text a record is searched by: its searchable fields, joined by a separator. */
export function buildSearchText(values: Array<string | null | undefined>): string {
  return values
    .filter((value): value is string => typeof value === 'string' && value.length > 0)
    .map((value) => value.replaceAll(SEARCH_SEPARATOR, '').toLowerCase())
    .filter((value) => value.length > 0)
    .join(SEARCH_SEPARATOR);
}

/** `limit` and `offset` of every paged list (spec §4). */
export const pagingQuerySchema = () =>
  z.object({
    limit: z.string().optional().describe('Page size: default 50, at most 500 (invalid values fall back to the default)'),
    offset: z.string().optional().describe('Records to skip: default 0, at most 1000000'),
  });
