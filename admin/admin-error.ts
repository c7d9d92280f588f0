/** Bad input to an admin command: printed as `{"error": ...}` on stderr with exit code 2. */
export class AdminInputError extends Error {}

/** An option that must be a whole number (`--order`, `--due-offset-days`): anything else, the empty string included, is bad input. */
export function integerOption(option: string, value: string, minimum?: number): number {
  const pattern = minimum === undefined ? /^-?\d+$/ : /^\d+$/;
  const parsed = Number(value);
  if (!pattern.test(value.trim()) || !Number.isSafeInteger(parsed) || (minimum !== undefined && parsed < minimum)) {
    throw new AdminInputError(minimum === undefined ? `--${option} must be an integer` : `--${option} must be an integer of at least ${minimum}`);
  }
  return parsed;
}
