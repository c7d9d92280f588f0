import { v7 as uuidv7, validate, version } from 'uuid';

/** Time-ordered ids: sort keys built from them follow creation order. */
export function newId(): string {
  return uuidv7();
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value) && validate(value) && version(value) >= 1;
}

export function nowIso(): string {
  return new Date().toISOString();
}
