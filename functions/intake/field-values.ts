import * as z from 'zod';
import { isWithinIsoYears } from '../../shared/validation/date-time';
import { normalizePhone } from '../../shared/contact-normalization';

/**
 * Reads form text as the typed values a lead holds. Each returns undefined when the text is not
 * such a value; the caller then keeps the text in the details note instead of losing it.
 */

/** E.164 with Israel as the default country (`050-123-4567` → `+972501234567`). */
export function phoneValue(text: string): string | undefined {
  return normalizePhone(text) ?? undefined;
}

const emailSchema = z.email();

export function emailValue(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed.length <= 320 && emailSchema.safeParse(trimmed).success ? trimmed : undefined;
}

/** `1,200,000`, `₪ 850000`, `1.5M`, `900K`, `1.2 מיליון`; non-negative. */
export function amountValue(text: string): number | undefined {
  let source = text.trim().toLowerCase().replace(/[₪$€£]|ils|nis|ש"ח|שח|שקלים|שקל/g, '').trim();
  let factor = 1;
  const suffix = /(k|m|אלף|מיליון)$/.exec(source);
  if (suffix) {
    factor = suffix[1] === 'k' || suffix[1] === 'אלף' ? 1_000 : 1_000_000;
    source = source.slice(0, -suffix[1].length).trim();
  }
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(source)) source = source.replace(/,/g, '');
  source = source.replace(/\s/g, '');
  if (!/^\d+(\.\d+)?$/.test(source)) return undefined;
  // `1.15M` is 1150000, not 1149999.9999999998: a multiplied amount is rounded to whole agorot.
  const value = factor === 1 ? Number(source) : Math.round(Number(source) * factor * 100) / 100;
  return Number.isFinite(value) ? value : undefined;
}

const TRUE_WORDS = new Set(['yes', 'true', '1', 'on', 'y', 'checked', 'כן', 'יש']);
const FALSE_WORDS = new Set(['no', 'false', '0', 'off', 'n', 'unchecked', 'לא', 'אין']);

export function booleanValue(text: string): boolean | undefined {
  const word = text.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** `YYYY-MM-DD`, an ISO date-time (a time without zone is read as UTC), or `DD/MM/YYYY` / `DD.MM.YYYY`. */
export function dateValue(text: string): string | undefined {
  const trimmed = text.trim();
  const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/.exec(trimmed);
  if (isoDate) return validDate(+isoDate[1], +isoDate[2], +isoDate[3]);
  const local = /^(\d{1,2})[/.](\d{1,2})[/.](\d{4})$/.exec(trimmed);
  if (local) return validDate(+local[3], +local[2], +local[1]);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(trimmed)) {
    const withZone = /(Z|[+-]\d{2}:?\d{2})$/i.test(trimmed) ? trimmed : `${trimmed}Z`;
    const parsed = Date.parse(withZone);
    return Number.isNaN(parsed) || !isWithinIsoYears(withZone) ? undefined : new Date(parsed).toISOString();
  }
  return undefined;
}

function validDate(year: number, month: number, day: number): string | undefined {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return date.toISOString().slice(0, 10);
}

/** At most `max` UTF-16 code units (what the lead schema counts), never splitting a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/** A text value cut to what the lead field holds. */
export function textValue(text: string, max: number): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return cutText(trimmed, max);
}
