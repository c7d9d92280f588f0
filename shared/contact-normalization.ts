import { parsePhoneNumberFromString } from 'libphonenumber-js';

/** E.164 form of a phone number, Israel as the default country; null when it is not a phone number. */
export function normalizePhone(phone: string | null | undefined): string | null {
  if (!phone || phone.trim() === '') return null;
  const parsed = parsePhoneNumberFromString(phone.trim(), 'IL');
  return parsed && parsed.isPossible() ? parsed.number : null;
}

export function normalizeEmail(email: string | null | undefined): string | null {
  if (!email || email.trim() === '') return null;
  return email.trim().toLowerCase();
}
