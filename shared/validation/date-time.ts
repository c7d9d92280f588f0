import * as z from 'zod';

/**
 * Whether the instant, in UTC, falls in the years 0000–9999: the range of an ISO 8601 date-time
 * without an expanded year, the only form stored keys, sort orders and schedules are built from
 * (`9999-12-31T23:59:59-05:30` is in year 10000 in UTC).
 */
export function isWithinIsoYears(value: string): boolean {
  const time = Date.parse(value);
  return !Number.isNaN(time) && /^\d{4}-/.test(new Date(time).toISOString());
}

/** A date-time field a client writes (resources.md §1 "Dates"): ISO 8601 with a zone, in years 0000–9999 in UTC (one message for one bad value: the year rule only for a valid date-time). */
export const dateTimeInput = () =>
  z.iso
    .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone', abort: true })
    .refine(isWithinIsoYears, 'must be an instant in the years 0000 to 9999 (UTC)');
