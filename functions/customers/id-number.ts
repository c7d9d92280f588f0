/**
 * Israeli identification numbers (resources.md §3 `id_number`): personal ids are 5–9 digits,
 * left-padded to 9; companies (51/52...) and associations (58...) are 9 digits; all three carry
 * the same check digit. Passports are 5–20 letters and digits.
 */
export type IdType = 'personal_id' | 'passport' | 'company' | 'association';

function hasValidCheckDigit(nineDigits: string): boolean {
  let sum = 0;
  for (let index = 0; index < 9; index++) {
    let product = Number(nineDigits[index]) * (index % 2 === 0 ? 1 : 2);
    if (product > 9) product -= 9;
    sum += product;
  }
  return sum % 10 === 0;
}

/** The number as stored, or a message saying why it is invalid. */
export function normalizeIdNumber(idType: IdType, raw: string): { value: string } | { error: string } {
  const value = raw.trim();
  switch (idType) {
    case 'personal_id': {
      if (!/^\d{5,9}$/.test(value)) return { error: 'a personal id is 5 to 9 digits' };
      const padded = value.padStart(9, '0');
      return hasValidCheckDigit(padded) ? { value: padded } : { error: 'the check digit of the personal id is wrong' };
    }
    case 'company':
      if (!/^5[12]\d{7}$/.test(value)) return { error: 'a company number is 9 digits starting with 51 or 52' };
      return hasValidCheckDigit(value) ? { value } : { error: 'the check digit of the company number is wrong' };
    case 'association':
      if (!/^58\d{7}$/.test(value)) return { error: 'an association number is 9 digits starting with 58' };
      return hasValidCheckDigit(value) ? { value } : { error: 'the check digit of the association number is wrong' };
    case 'passport':
      return /^[A-Za-z0-9]{5,20}$/.test(value) ? { value } : { error: 'a passport number is 5 to 20 letters and digits' };
  }
}
