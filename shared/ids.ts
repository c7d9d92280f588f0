import { v7 as uuidv7 } from 'uuid';

/** Time-ordered ids: sort keys built from them follow creation order. */
export function newId(): string {
  return uuidv7();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A well-formed UUID: 32 hex digits in the 8-4-4-4-12 form, any version or variant, either case
 * (the nil UUID too). A path id of this form that names no record is a 404, not a 400 (spec §2).
 */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

export function nowIso(): string {
  return new Date().toISOString();
}
