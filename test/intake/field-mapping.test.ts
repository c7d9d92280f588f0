import { parseBody } from '../../functions/intake/body-parser';
import { isHoneypotHit, mapFields } from '../../functions/intake/field-mapping';
import { amountValue, booleanValue, cutText, dateValue } from '../../functions/intake/field-values';
import { readIntakeRequest } from '../../functions/intake/intake-request';
import { buildLeadInput, storableLeadInput } from '../../functions/intake/intake-lead-input';
import type { IntakeEndpointConfig } from '../../functions/intake/intake-endpoint.schema';
import { isAddressAllowed, parseAllowEntry } from '../../functions/intake/ip-allow-list';
import { checkSignature, signatureFor } from '../../functions/intake/intake-signature';
import { flattenFields } from '../../functions/intake/submitted-fields';

/** Pure field matching (spec §4 "Field matching order" and the built-in names table); no engine needed. */

const endpoint = (overrides: Partial<IntakeEndpointConfig> = {}): IntakeEndpointConfig => ({
  name: 'Website form',
  is_active: true,
  default_source: null,
  status: null,
  assigned_to: null,
  tags: [],
  duplicate_mode: 'flag',
  ip_allow: [],
  signing_secret: null,
  honeypot_field: null,
  mapping: {},
  ...overrides,
});

async function leadFrom(body: Record<string, unknown> | string, config = endpoint(), contentType = 'application/json') {
  const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  const parsed = await parseBody(raw, typeof body === 'string' ? contentType.replace('json', 'x-www-form-urlencoded') : contentType);
  const { fields } = flattenFields(parsed.tree, parsed.format);
  const mapped = mapFields(fields, config);
  return { mapped, input: buildLeadInput(mapped, config), fields };
}

/** The table of spec §4, verbatim. */
const SPEC_BUILT_IN_NAMES: Record<string, string[]> = {
  first_name: ['first_name', 'firstname', 'first name', 'fname', 'first', 'given_name'],
  last_name: ['last_name', 'lastname', 'last name', 'lname', 'last', 'surname', 'family_name'],
  full_name: ['name', 'full_name', 'fullname', 'your-name', 'contact_name'],
  phone: ['phone', 'tel', 'mobile', 'telephone', 'phone_number', 'phonenumber', 'your-tel', 'your-phone', 'cell', 'cellphone', 'mobile_phone', 'whatsapp'],
  email: ['email', 'e-mail', 'mail', 'email_address', 'your-email'],
  notes: ['message', 'notes', 'note', 'comments', 'comment', 'your-message', 'details', 'inquiry', 'enquiry'],
  source: ['source', 'lead_source', 'how_did_you_hear'],
  mortgage_purpose: ['mortgage_purpose', 'purpose', 'loan_purpose'],
  required_amount: ['required_amount', 'amount', 'loan_amount', 'mortgage_amount'],
  total_income: ['total_income', 'income', 'monthly_income'],
  has_property: ['has_property', 'own_property', 'owns_property'],
  utm_source: ['utm_source'],
  utm_medium: ['utm_medium'],
  utm_campaign: ['utm_campaign', 'campaign_name'],
  utm_term: ['utm_term'],
  utm_content: ['utm_content'],
  referrer_url: ['referrer', 'referer', 'referrer_url', 'http_referer', 'document_referrer'],
  landing_path: ['landing_path', 'landing_page', 'page_url', 'source_url', 'form_url', 'page_location'],
};

const SAMPLE: Record<string, string> = {
  first_name: 'Dana',
  last_name: 'Cohen',
  full_name: 'Dana Cohen',
  phone: '050-123-4567',
  email: 'dana@example.com',
  notes: 'Call me in the evening',
  source: 'Facebook',
  mortgage_purpose: 'First apartment',
  required_amount: '1,200,000',
  total_income: '25000',
  has_property: 'yes',
  utm_source: 'google',
  utm_medium: 'cpc',
  utm_campaign: 'spring',
  utm_term: 'mortgage',
  utm_content: 'ad-1',
  referrer_url: 'https://www.google.com/',
  landing_path: 'https://example.co.il/mortgage?x=1',
};

const EXPECTED: Record<string, [string, unknown][]> = {
  first_name: [['first_name', 'Dana']],
  last_name: [['last_name', 'Cohen'], ['first_name', 'Cohen']],
  full_name: [['first_name', 'Dana'], ['last_name', 'Cohen']],
  phone: [['phone', '+972501234567']],
  email: [['email', 'dana@example.com']],
  notes: [['notes', 'Call me in the evening']],
  source: [['source', 'Facebook']],
  mortgage_purpose: [['mortgage_purpose', 'First apartment']],
  required_amount: [['required_amount', 1_200_000]],
  total_income: [['total_income', 25_000]],
  has_property: [['has_property', true]],
};

describe('spec §4 built-in names', () => {
  for (const [target, names] of Object.entries(SPEC_BUILT_IN_NAMES)) {
    test(`spec §4 built-in names: ${names.join(', ')} → ${target}`, async () => {
      for (const name of names) {
        const { mapped } = await leadFrom({ [name]: SAMPLE[target] });
        expect(mapped.details).toEqual([]);
        if (target === 'last_name') {
          expect(mapped.lead.last_name).toBe('Cohen');
        } else if (target === 'full_name') {
          expect([mapped.lead.first_name, mapped.lead.last_name]).toEqual(['Dana', 'Cohen']);
        } else {
          const [[field, value]] = EXPECTED[target] ?? [[target, SAMPLE[target]]];
          expect((mapped.lead as Record<string, unknown>)[field]).toEqual(value);
        }
      }
    });
  }

  test('spec §4: case-insensitive; space, hyphen and underscore equivalent; trailing * or : ignored', async () => {
    for (const name of ['PHONE', 'Phone Number', 'phone-number', 'Phone_Number *', 'Mobile Phone:', 'Your Tel*', ' E-Mail : ']) {
      const { mapped } = await leadFrom({ [name]: name.toLowerCase().includes('mail') ? 'dana@example.com' : '0501234567' });
      expect(mapped.details).toEqual([]);
      expect(mapped.lead.phone ?? mapped.lead.email).toBeTruthy();
    }
  });

  test('spec §4: the last path part of nested JSON is matched', async () => {
    const { mapped } = await leadFrom({ lead: { contact: { email: 'dana@example.com', name: { first: 'Dana', last: 'Cohen' } } } });
    expect(mapped.lead).toMatchObject({ email: 'dana@example.com', first_name: 'Dana', last_name: 'Cohen' });
  });

  test('spec §4: Hebrew labels are recognized', async () => {
    const hebrew: Array<[string, string, string, unknown]> = [
      ['שם', 'דנה כהן', 'first_name', 'דנה'],
      ['שם פרטי', 'דנה', 'first_name', 'דנה'],
      ['שם משפחה', 'כהן', 'last_name', 'כהן'],
      ['שם מלא', 'דנה כהן', 'last_name', 'כהן'],
      ['טלפון', '050-1234567', 'phone', '+972501234567'],
      ['נייד', '052-7654321', 'phone', '+972527654321'],
      ['פלאפון', '0541112222', 'phone', '+972541112222'],
      ['מספר טלפון', '03-5551234', 'phone', '+97235551234'],
      ['אימייל', 'dana@example.com', 'email', 'dana@example.com'],
      ['מייל', 'dana@example.com', 'email', 'dana@example.com'],
      ['דוא"ל', 'dana@example.com', 'email', 'dana@example.com'],
      ['דוא״ל', 'dana@example.com', 'email', 'dana@example.com'],
      ['הודעה', 'אשמח לשיחה', 'notes', 'אשמח לשיחה'],
      ['הערות', 'בערב', 'notes', 'בערב'],
      ['סכום', '1,000,000', 'required_amount', 1_000_000],
      ['סכום משכנתא', '₪850,000', 'required_amount', 850_000],
    ];
    for (const [label, value, field, expected] of hebrew) {
      const { mapped } = await leadFrom({ [`${label} *`]: value });
      expect({ label, value: (mapped.lead as Record<string, unknown>)[field] }).toEqual({ label, value: expected });
      expect(mapped.details).toEqual([]);
    }
  });

  test('spec §4: campaign_name is stored as utm_campaign', async () => {
    const { mapped } = await leadFrom({ email: 'a@example.com', campaign_name: 'Spring 2025' });
    expect(mapped.lead.utm_campaign).toBe('Spring 2025');
  });

  test('spec §4: a Facebook-style field_data array is recognized', async () => {
    const { mapped } = await leadFrom({
      field_data: [
        { name: 'full_name', values: ['Dana Cohen'] },
        { name: 'phone_number', values: ['+972501234567'] },
        { name: 'what_is_your_budget?', values: ['1.2M'] },
      ],
    });
    expect(mapped.lead).toMatchObject({ first_name: 'Dana', last_name: 'Cohen', phone: '+972501234567' });
    expect(mapped.details).toEqual(['what_is_your_budget?: 1.2M']);
  });
});

describe('spec §4 field matching order', () => {
  test('spec §4 step 1: the endpoint mapping (by key or by label) wins over built-in names', async () => {
    const config = endpoint({ mapping: { phone: 'custom_fields.office_phone', 'Your budget': 'required_amount', 'field_7': 'phone' } });
    const { mapped } = await leadFrom(
      { phone: '03-5551234', field_7: '050-1234567', fields: { budget: { id: 'budget', title: 'Your budget', value: '900K' } } },
      config,
    );
    expect(mapped.lead.custom_fields).toEqual({ office_phone: '03-5551234' });
    expect(mapped.lead.phone).toBe('+972501234567');
    expect(mapped.lead.required_amount).toBe(900_000);
  });

  test('spec §4 step 1: mapping keys are matched like built-in names (case, separators, trailing *)', async () => {
    const { mapped } = await leadFrom({ 'How Much?*': '750000', email: 'a@example.com' }, endpoint({ mapping: { 'how much?': 'required_amount' } }));
    expect(mapped.lead.required_amount).toBe(750_000);
  });

  test('spec §4: every mapping target works, including custom_fields.<name>, next_follow_up_at, source_id and ignore', async () => {
    const mapping: Record<string, string> = {
      a: 'first_name', b: 'last_name', c: 'phone', d: 'email', e: 'notes', f: 'source_id', g: 'mortgage_purpose', h: 'required_amount',
      i: 'total_income', j: 'has_property', k: 'next_follow_up_at', l: 'utm_source', m: 'utm_medium', n: 'utm_campaign', o: 'utm_term',
      p: 'utm_content', q: 'referrer_url', r: 'landing_path', s: 'custom_fields.city', t: 'ignore', u: 'full_name',
    };
    const body = {
      a: 'Dana', b: 'Cohen', c: '0501234567', d: 'dana@example.com', e: 'hi', f: 'src-42', g: 'refinance', h: '1000000', i: '20,000',
      j: 'לא', k: '15/07/2025', l: 'fb', m: 'social', n: 'summer', o: 'loan', p: 'video', q: 'https://ref.example/', r: '/landing',
      s: 'חיפה', t: 'dropped', u: 'Ignored Because First And Last Exist',
    };
    const { mapped } = await leadFrom(body, endpoint({ mapping: mapping as never }));
    expect(mapped.lead).toEqual({
      first_name: 'Dana', last_name: 'Cohen', phone: '+972501234567', email: 'dana@example.com', notes: 'hi', source: 'src-42',
      mortgage_purpose: 'refinance', required_amount: 1_000_000, total_income: 20_000, has_property: false, next_follow_up_at: '2025-07-15',
      utm_source: 'fb', utm_medium: 'social', utm_campaign: 'summer', utm_term: 'loan', utm_content: 'video', referrer_url: 'https://ref.example/',
      landing_path: '/landing', custom_fields: { city: 'חיפה' },
    });
    expect(mapped.details).toEqual([]);
  });

  test('spec §4 step 3: technical fields are dropped (captcha tokens, _-keys, form metadata, Gravity entry data)', async () => {
    const { mapped } = await leadFrom({
      email: 'a@example.com',
      'g-recaptcha-response': '03AGdBq2...', 'h-captcha-response': 'P1_eyJ...', 'cf-turnstile-response': '0.abc', _wpcf7: '5', _wpnonce: 'abc',
      form_id: '3', form_name: 'Contact', nonce: 'x', id: '12', date_created: '2025-01-01 10:00:00', is_starred: '0', is_read: '0',
      user_agent: 'Mozilla/5.0', ip: '1.2.3.4', currency: 'USD', status: 'active', created_by: '1',
      source_url: 'https://example.co.il/contact', city: 'Haifa',
    });
    expect(mapped.details).toEqual(['city: Haifa']);
    // Built-in names come before technical fields: Gravity's source_url is the landing page.
    expect(mapped.lead.landing_path).toBe('https://example.co.il/contact');
  });

  test('spec §4 step 3: form metadata containers fill only page and campaign fields; a form object with the person in it is read', async () => {
    const metadata = await leadFrom({
      form: { id: 'f1', name: 'Mortgage form' }, meta: { page_url: { title: 'Page URL', value: 'https://a.example/' }, name: { value: 'x' } },
      context: { pageName: 'LP', utm_source: 'fb' }, email: 'a@example.com',
    });
    expect(metadata.mapped.lead).toEqual({ email: 'a@example.com', landing_path: 'https://a.example/', utm_source: 'fb' });
    expect(metadata.mapped.details).toEqual([]);
    const nested = await leadFrom({ form: { name: 'Dana Cohen', phone: '0501234567', city: 'Haifa' } });
    expect(nested.mapped.lead).toMatchObject({ first_name: 'Dana', last_name: 'Cohen', phone: '+972501234567' });
    expect(nested.mapped.details).toEqual(['form.city: Haifa']);
  });

  test('spec §4 step 4: everything else goes into the details note as readable label: value lines', async () => {
    const { input } = await leadFrom({ email: 'a@example.com', 'Preferred bank': 'Leumi', 'מספר ילדים': '3', household: { members: '4' } });
    expect(input.details_note).toBe('Preferred bank: Leumi\nמספר ילדים: 3\nhousehold.members: 4');
  });

  test('spec §4: a value that cannot be read for its target is kept in the details note, not lost', async () => {
    const { mapped } = await leadFrom({ email: 'a@example.com', amount: 'about a million', phone: '12', has_property: 'maybe' });
    expect(mapped.lead).toEqual({ email: 'a@example.com' });
    expect(mapped.details).toEqual(['amount: about a million', 'phone: 12', 'has_property: maybe']);
    expect(mapped.unreadableContact).toEqual(['phone']);
  });

  test('spec §4: several message fields are kept together in notes; a second phone goes to the details note', async () => {
    const { mapped } = await leadFrom({ message: 'first', comments: 'second', phone: '0501111111', mobile: '0522222222' });
    expect(mapped.lead.notes).toBe('first\nsecond');
    expect(mapped.lead.phone).toBe('+972501111111');
    expect(mapped.details).toEqual(['mobile: 0522222222']);
  });
});

describe('spec §4 lead rules', () => {
  test('spec §4: a lead without a name is named after the endpoint', async () => {
    const { input } = await leadFrom({ phone: '0501234567' }, endpoint({ name: 'Landing page A' }));
    expect(input.first_name).toBe('Landing page A');
    expect(input.last_name).toBeNull();
  });

  test('spec §4: a last name alone stays the last name under every built-in name; the first name falls back to the endpoint', async () => {
    for (const name of SPEC_BUILT_IN_NAMES.last_name) {
      const { input } = await leadFrom({ [name]: 'Cohen', phone: '0501234567' }, endpoint({ name: 'Landing page A' }));
      expect([name, input.first_name, input.last_name]).toEqual([name, 'Landing page A', 'Cohen']);
    }
  });

  test('spec §4: a full name splits into first name (first word) and last name (rest)', async () => {
    const { input } = await leadFrom({ name: '  Dana   Bat Sheva Cohen ', phone: '0501234567' });
    expect([input.first_name, input.last_name]).toEqual(['Dana', 'Bat Sheva Cohen']);
    const single = await leadFrom({ name: 'Dana', phone: '0501234567' });
    expect([single.input.first_name, single.input.last_name]).toEqual(['Dana', null]);
  });

  test('spec §4: explicit first and last names win over a full name', async () => {
    const { input } = await leadFrom({ full_name: 'Someone Else', first_name: 'Dana', last_name: 'Cohen', phone: '0501234567' });
    expect([input.first_name, input.last_name]).toEqual(['Dana', 'Cohen']);
  });

  test('spec §4: phones are normalized to E.164 with Israel as the default country', async () => {
    for (const [sent, stored] of [
      ['050-123-4567', '+972501234567'],
      ['(050) 1234567', '+972501234567'],
      ['+972 50 123 4567', '+972501234567'],
      ['00972501234567', '+972501234567'],
      ['+1 650 555 0123', '+16505550123'],
    ]) {
      const { input } = await leadFrom({ phone: sent });
      expect(input.phone).toBe(stored);
    }
  });

  test('spec §4: status and assignee always come from the endpoint; the request cannot set them', async () => {
    const assignee = '01900000-0000-7000-8000-000000000001';
    const { input } = await leadFrom(
      { phone: '0501234567', status: 'converted', assigned_to: '01900000-0000-7000-8000-000000000009' },
      endpoint({ status: 'contacted', assigned_to: assignee, tags: ['web', 'hot'] }),
    );
    expect(input).toMatchObject({ status: 'contacted', assigned_to: assignee, tags: ['web', 'hot'] });
  });

  test("spec §4: a source in the request wins over the endpoint's default source", async () => {
    const withSource = await leadFrom({ phone: '0501234567', lead_source: 'Instagram' }, endpoint({ default_source: 'Website' }));
    expect(withSource.input.source).toBe('Instagram');
    const without = await leadFrom({ phone: '0501234567' }, endpoint({ default_source: 'Website' }));
    expect(without.input.source).toBe('Website');
  });

  test('spec §5 honeypot: _hp, honeypot and the configured field, when filled', async () => {
    const hit = async (body: Record<string, unknown>, field: string | null = null) => {
      const parsed = await parseBody(Buffer.from(JSON.stringify(body)), 'application/json');
      return isHoneypotHit(flattenFields(parsed.tree, parsed.format).fields, field);
    };
    expect(await hit({ email: 'a@example.com', _hp: 'x' })).toBe(true);
    expect(await hit({ email: 'a@example.com', honeypot: 'x' })).toBe(true);
    expect(await hit({ email: 'a@example.com', website_url: 'http://spam' }, 'website_url')).toBe(true);
    expect(await hit({ email: 'a@example.com', _hp: '', honeypot: ' ' })).toBe(false);
    expect(await hit({ email: 'a@example.com', website_url: 'http://spam' })).toBe(false);
  });
});

describe('typed values', () => {
  test('spec §4 amounts, booleans and dates are read from common form text', () => {
    expect(['1,200,000', '₪ 850000', '1.5M', '900K', '1.2 מיליון', '750 אלף', '12.5'].map(amountValue)).toEqual([
      1_200_000, 850_000, 1_500_000, 900_000, 1_200_000, 750_000, 12.5,
    ]);
    expect(['a lot', '-5', '1.200.000'].map(amountValue)).toEqual([undefined, undefined, undefined]);
    expect(['Yes', 'true', 'כן', 'on', 'No', '0', 'לא', 'maybe'].map(booleanValue)).toEqual([true, true, true, true, false, false, false, undefined]);
    expect(['2025-07-15', '15/07/2025', '1.2.2026', '2025-07-15T09:30', '2025-07-15T09:30:00+03:00', '31/02/2025', 'tomorrow'].map(dateValue)).toEqual([
      '2025-07-15', '2025-07-15', '2026-02-01', '2025-07-15T09:30:00.000Z', '2025-07-15T06:30:00.000Z', undefined, undefined,
    ]);
  });

  test('spec §4: amounts outside the lead bound (over 1e12, three decimals) are kept in the details note, not on the lead', async () => {
    const { input } = await leadFrom('phone=0501234567&amount=1000000000001&income=100.125&budget=abc');
    expect(input).toMatchObject({ details_note: 'amount: 1000000000001\nincome: 100.125\nbudget: abc' });
    expect(input.required_amount).toBeUndefined();
    expect(input.total_income).toBeUndefined();
  });

  test('a value the lead schema still refuses moves into the details note instead of failing the lead', () => {
    const customFields = Object.fromEntries(Array.from({ length: 101 }, (_, index) => [`f${index}`, 'x']));
    const input = storableLeadInput({ first_name: 'Dana', phone: '+972501234567', required_amount: -1, custom_fields: customFields, details_note: 'city: Haifa' });
    expect(input).toMatchObject({ first_name: 'Dana', phone: '+972501234567' });
    expect(input).not.toHaveProperty('required_amount');
    expect(input).not.toHaveProperty('custom_fields');
    const lines = input.details_note!.split('\n');
    expect(lines.slice(0, 3)).toEqual(['city: Haifa', 'required_amount: -1', 'custom_fields.f0: x']);
    expect(lines).toHaveLength(2 + 101);
  });
});

describe('spec §5 lead intake protection (pure parts)', () => {
  test('spec §5 IP allow-list: single addresses and CIDR ranges, IPv4 and IPv6', () => {
    const list = ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32', '2a00:1450::1'];
    expect(isAddressAllowed('203.0.113.7', list)).toBe(true);
    expect(isAddressAllowed('203.0.113.8', list)).toBe(false);
    expect(isAddressAllowed('198.51.100.200', list)).toBe(true);
    expect(isAddressAllowed('198.51.101.1', list)).toBe(false);
    expect(isAddressAllowed('2001:db8:abcd::5', list)).toBe(true);
    expect(isAddressAllowed('2001:db9::5', list)).toBe(false);
    expect(isAddressAllowed('2a00:1450:0:0:0:0:0:1', list)).toBe(true);
    expect(isAddressAllowed('::ffff:198.51.100.9', list)).toBe(true); // IPv4-mapped IPv6 is the IPv4 address
    expect(isAddressAllowed('not-an-ip', list)).toBe(false);
    expect(['10.0.0.0/33', '1.2.3', '0x7f.1', 'fe80::/129', 'example.com', ''].map(parseAllowEntry)).toEqual(Array(6).fill(undefined));
  });

  test('spec §5 signature: sha256= hex HMAC of "<timestamp>.<raw body>", 5-minute tolerance', () => {
    const secret = 'lisec_test_secret_value';
    const body = Buffer.from('{"email":"a@example.com"}');
    const now = 1_750_000_000_000;
    const timestamp = String(now / 1000);
    const signature = signatureFor(secret, timestamp, body);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(checkSignature(secret, timestamp, signature, body, now)).toBe('valid');
    expect(checkSignature(secret, timestamp, signature.toUpperCase().replace('SHA256=', 'sha256='), body, now)).toBe('valid');
    expect(checkSignature(secret, timestamp, signature, Buffer.from('{"email":"b@example.com"}'), now)).toBe('signature_invalid');
    expect(checkSignature('other', timestamp, signature, body, now)).toBe('signature_invalid');
    expect(checkSignature(secret, undefined, signature, body, now)).toBe('signature_missing');
    expect(checkSignature(secret, timestamp, undefined, body, now)).toBe('signature_missing');
    expect(checkSignature(secret, timestamp, signature, body, now + 301_000)).toBe('signature_expired');
    expect(checkSignature(secret, timestamp, signature, body, now - 299_000)).toBe('valid');
    expect(checkSignature(secret, 'yesterday', signature, body, now)).toBe('signature_expired');
  });
});

describe('spec §4 addresses (event reading)', () => {
  const event = (rawPath: string, extra: Record<string, unknown> = {}) =>
    ({ rawPath, headers: { 'Content-Type': 'application/json' }, requestContext: { http: { method: 'post', sourceIp: '203.0.113.9' } }, ...extra }) as never;

  test('spec §4: /hooks/leads/<token> is the proxied address (also behind a named stage), /<token> the direct one', () => {
    expect(readIntakeRequest(event('/hooks/leads/lit_abc'))).toMatchObject({ token: 'lit_abc', address: 'proxied', method: 'POST' });
    expect(readIntakeRequest(event('/prod/hooks/leads/lit_abc/'))).toMatchObject({ token: 'lit_abc', address: 'proxied' });
    expect(readIntakeRequest(event('/lit_abc'))).toMatchObject({ token: 'lit_abc', address: 'direct', sourceIp: '203.0.113.9' });
    // Anything else never counts as the direct address, where the allow-list is trusted.
    expect(readIntakeRequest(event('/a/b/lit_abc'))).toMatchObject({ token: undefined, address: 'proxied' });
    expect(readIntakeRequest(event('/'))).toMatchObject({ token: undefined });
  });

  test('spec §4: a base64-encoded body (isBase64Encoded) is decoded to its bytes; header names are read case-insensitively', () => {
    const request = readIntakeRequest(event('/lit_abc', { body: Buffer.from('{"שם":"דנה"}').toString('base64'), isBase64Encoded: true }));
    expect(request.body.toString('utf8')).toBe('{"שם":"דנה"}');
    expect(request.contentType).toBe('application/json');
  });

  test('lead text limits count UTF-16 units and never split an emoji', () => {
    expect(cutText('ab😀cd', 3)).toBe('ab');
    expect(cutText('ab😀cd', 4)).toBe('ab😀');
    expect(cutText('abc', 5)).toBe('abc');
  });
});
