import * as z from 'zod';
import { listValues, type SystemListName } from '../lists/system-lists';

/** Field rules shared by every resource (resources.md §1 "Strings", "Dates", "Enums"). */
export const NAME_MAX = 100;
export const TITLE_MAX = 200;
export const KEY_MAX = 64;
export const FREE_TEXT_MAX = 5_000;
export const EMAIL_MAX = 320;
export const PHONE_MAX = 50;

/** A trimmed string of at most `max` characters (an empty one is kept: each resource says what it means). */
export const text = (max: number) => z.string({ error: 'must be a string' }).trim().max(max, `must be at most ${max} characters`);

/** A required string: trimmed, not empty. */
export const requiredText = (max: number) => text(max).min(1, 'must not be empty');

/** One value of a system list (`GET /lists/{name}`). */
export const listValue = <Name extends SystemListName>(name: Name) =>
  z.enum(listValues(name), { error: `must be one of the values of GET /lists/${name}` });

/** An email address; the empty string is allowed (it clears an optional field). */
export const emailAddress = () => z.union([z.literal(''), z.email({ error: 'must be a valid email address' }).max(EMAIL_MAX, `must be at most ${EMAIL_MAX} characters`)]);

/** An email address, trimmed first like every string (resources.md §1 "Strings"); empty clears. */
export const trimmedEmailAddress = () => z.string({ error: 'must be a string' }).trim().pipe(emailAddress());

/**
 * An id in a body or query (resources.md §1 References): any 8-4-4-4-12 hex UUID, like a path id
 * (`isUuid`), in either case, read in lower case as ids are stored.
 */
export const recordId = (what: string) => z.guid({ error: `must be a ${what} id` }).toLowerCase();

/** `YYYY-MM-DD`, a real calendar day. */
export const calendarDate = () => z.iso.date({ error: 'must be a date YYYY-MM-DD' });

/** Today in the Asia/Jerusalem calendar, `YYYY-MM-DD`. */
export function todayInIsrael(now = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** An empty string in an optional field is stored as null. */
export const emptyToNull = <T>(value: T): T | null => (value === '' ? null : value);
