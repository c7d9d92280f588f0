import { amountSchema } from '../../shared/validation/bounded';

/**
 * Exact money for charges and payments (resources.md §9.10, §9.11): amounts are ILS JSON numbers
 * with at most 2 decimals (`amountSchema`), and every sum is computed in whole agorot (integers,
 * exact up to 2^53 agorot), so no floating-point drift accumulates over many payments.
 */
export const toAgorot = (amount: unknown): number => Math.round(Number(amount ?? 0) * 100);
export const fromAgorot = (agorot: number): number => agorot / 100;

/** §9.10 recalculation (not for a cancelled charge): nothing paid → pending; less than the amount → partial; else paid. */
export function chargeStatusFor(paidAgorot: number, amountAgorot: number): 'pending' | 'partial' | 'paid' {
  if (paidAgorot <= 0) return 'pending';
  return paidAgorot < amountAgorot ? 'partial' : 'paid';
}

/** `YYYY-MM-DD` + `days` (calendar arithmetic on the date itself, no time zone involved). */
export function addDays(day: string, days: number): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

/** A charge's or payment's amount: an ILS amount (`amountSchema`) greater than 0. */
export const positiveAmount = () => amountSchema().refine((value) => value > 0, 'must be greater than 0').meta({ exclusiveMinimum: 0 });
