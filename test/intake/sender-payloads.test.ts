import { startTestRuntime, type TestRuntime } from '../support/test-runtime';
import { createIntake, postIntake, readLead, type Body, type IntakeEndpointCreated, type Tenant } from './intake-support';

/**
 * The payload shapes real form plugins, ad platforms and automation tools send (spec §4 "Body" and
 * "Field matching order"), posted over real HTTP to the local intake, each checked for the lead it
 * produces as GET /leads/{id} shows it.
 */
let runtime: TestRuntime;
let tenant: Tenant;
let plain: IntakeEndpointCreated;

beforeAll(async () => {
  runtime = await startTestRuntime({ events: false });
  tenant = await runtime.organization();
  plain = await createIntake(runtime, tenant.organizationId, '--name', 'Website', '--duplicate-mode', 'none', '--tags', 'web');
});
afterAll(async () => {
  await runtime.stop();
});

async function leadFor(body: Body, options: { token?: string; headers?: Record<string, string> } = {}) {
  const response = await postIntake(runtime, options.token ?? plain.token, body, { headers: options.headers });
  expect(response.body).toMatchObject({ ok: true, created: true });
  expect(response.status).toBe(200);
  return readLead(runtime, tenant, response.body.lead_id);
}

const form = (pairs: Array<[string, string]>) => new URLSearchParams(pairs);

test('Contact Form 7 (multipart/form-data with _wpcf7 fields and a reCAPTCHA token)', async () => {
  const body = new FormData();
  for (const [name, value] of [
    ['_wpcf7', '123'], ['_wpcf7_version', '5.9.8'], ['_wpcf7_locale', 'he_IL'], ['_wpcf7_unit_tag', 'wpcf7-f123-p45-o1'],
    ['_wpcf7_container_post', '45'], ['_wpcf7_posted_data_hash', ''], ['_wpcf7_recaptcha_response', '03AFcWeA7...'],
    ['your-name', 'Dana Cohen'], ['your-email', 'dana.cf7@example.com'], ['your-tel', '050-111-2233'],
    ['your-subject', 'Mortgage for a first apartment'], ['your-message', 'Please call me after 17:00'], ['acceptance-231', '1'],
    ['g-recaptcha-response', '03AFcWeA7...'],
  ]) body.append(name, value);
  const lead = await leadFor(body);
  expect(lead).toMatchObject({
    first_name: 'Dana', last_name: 'Cohen', email: 'dana.cf7@example.com', phone: '+972501112233', notes: 'Please call me after 17:00',
    tags: ['web'], source: null, intake_endpoint_id: plain.intake_id,
  });
  expect(lead.details_note).toBe('your-subject: Mortgage for a first apartment\nacceptance-231: 1');
});

test('Elementor Pro webhook, advanced data (fields[...][value], form[...], meta[...])', async () => {
  const field = (id: string, type: string, title: string, value: string): Array<[string, string]> => [
    [`fields[${id}][id]`, id], [`fields[${id}][type]`, type], [`fields[${id}][title]`, title], [`fields[${id}][value]`, value],
    [`fields[${id}][raw_value]`, value], [`fields[${id}][required]`, '1'],
  ];
  const meta = (id: string, title: string, value: string): Array<[string, string]> => [[`meta[${id}][title]`, title], [`meta[${id}][value]`, value]];
  const body = form([
    ['form[id]', '5b3e9f1'], ['form[name]', 'Mortgage lead form'],
    ...field('name', 'text', 'Full name', 'Yossi Levi'),
    ...field('field_a1b2c3', 'tel', 'Mobile', '052-222-3344'),
    ...field('email', 'email', 'Email', 'yossi.elementor@example.com'),
    ...field('field_9f8e7d', 'select', 'Property type', 'Apartment'),
    ...field('message', 'textarea', 'Message', 'Refinance question'),
    ...meta('date', 'Date', 'July 1, 2025'), ...meta('time', 'Time', '9:15 am'),
    ...meta('page_url', 'Page URL', 'https://advisor.example.co.il/mortgage/'),
    ...meta('user_agent', 'User Agent', 'Mozilla/5.0'), ...meta('remote_ip', 'Remote IP', '203.0.113.10'),
    ...meta('credit', 'Powered by', 'Elementor'),
  ]);
  const lead = await leadFor(body);
  expect(lead).toMatchObject({
    first_name: 'Yossi', last_name: 'Levi', phone: '+972522223344', email: 'yossi.elementor@example.com', notes: 'Refinance question',
    landing_path: 'https://advisor.example.co.il/mortgage/',
  });
  expect(lead.details_note).toBe('Property type: Apartment');
});

test('Elementor Pro webhook, simple mode with Hebrew labels (a Hebrew form)', async () => {
  const body = form([
    ['שם מלא', 'דנה בת שבע כהן'], ['טלפון', '054-333-4455'], ['אימייל', 'dana.hebrew@example.com'], ['סכום משכנתא', '₪1,350,000'],
    ['הודעה', 'מעוניינת במחזור משכנתא, תודה!'], ['עיר', 'חיפה'], ['Date', 'יולי 1, 2025'], ['Time', '09:15'],
    ['Page URL', 'https://advisor.example.co.il/צור-קשר/'], ['User Agent', 'Mozilla/5.0'], ['Remote IP', '203.0.113.10'],
    ['Powered by', 'Elementor'], ['form_id', '5b3e9f1'], ['form_name', 'טופס לידים'],
  ]);
  const lead = await leadFor(body);
  expect(lead).toMatchObject({
    first_name: 'דנה', last_name: 'בת שבע כהן', phone: '+972543334455', email: 'dana.hebrew@example.com', required_amount: 1_350_000,
    notes: 'מעוניינת במחזור משכנתא, תודה!', landing_path: 'https://advisor.example.co.il/צור-קשר/',
  });
  expect(lead.details_note).toBe('עיר: חיפה\nDate: יולי 1, 2025\nTime: 09:15');
});

test('a Hebrew form of an older site, urlencoded in windows-1255', async () => {
  const decoder = new TextDecoder('windows-1255');
  const byteOf = new Map<string, number>();
  for (let byte = 0xe0; byte <= 0xfa; byte++) byteOf.set(decoder.decode(Uint8Array.of(byte)), byte);
  const encode = (text: string) =>
    [...text].map((char) => (byteOf.has(char) ? `%${byteOf.get(char)!.toString(16).toUpperCase()}` : encodeURIComponent(char))).join('');
  const body = [['שם פרטי', 'רותם'], ['שם משפחה', 'אברהם'], ['נייד', '0501234000'], ['הערות', 'שיחה בבוקר']]
    .map(([name, value]) => `${encode(name)}=${encode(value)}`)
    .join('&');
  const lead = await leadFor(body, { headers: { 'content-type': 'application/x-www-form-urlencoded; charset=windows-1255' } });
  expect(lead).toMatchObject({ first_name: 'רותם', last_name: 'אברהם', phone: '+972501234000', notes: 'שיחה בבוקר', details_note: null });
});

test('a Hebrew JSON form (דוא"ל, פלאפון, שם ושם משפחה) with nested answers', async () => {
  const lead = await leadFor({ פרטים_אישיים: { 'שם פרטי': 'מיכל', 'שם משפחה': 'לוי' }, 'דוא"ל': 'michal@example.com', פלאפון: '053-7654321', 'מספר ילדים': 2 });
  expect(lead).toMatchObject({ first_name: 'מיכל', last_name: 'לוי', email: 'michal@example.com', phone: '+972537654321' });
  expect(lead.details_note).toBe('מספר ילדים: 2');
});

test('Gravity Forms webhook ("all fields": entry data and numeric field ids, mapped by key)', async () => {
  const gravity = await createIntake(
    runtime, tenant.organizationId, '--name', 'Gravity', '--duplicate-mode', 'none',
    '--mapping', JSON.stringify({ '1.3': 'first_name', '1.6': 'last_name', '2': 'email', '3': 'phone', '4': 'required_amount', '5': 'notes' }),
  );
  const lead = await leadFor(
    {
      id: '42', status: 'active', form_id: '3', ip: '203.0.113.10', source_url: 'https://advisor.example.co.il/apply/', currency: 'ILS',
      post_id: null, date_created: '2025-07-01 09:15:22', date_updated: '2025-07-01 09:15:22', is_starred: 0, is_read: 0,
      user_agent: 'Mozilla/5.0', payment_status: null, payment_date: null, payment_amount: null, payment_method: '', transaction_id: null,
      is_fulfilled: null, created_by: null, transaction_type: null,
      '1.3': 'Avi', '1.6': 'Mizrahi', '2': 'avi.gravity@example.com', '3': '(052) 444-5566', '4': '1,500,000', '5': 'Looking to refinance', '6': 'Tel Aviv',
    },
    { token: gravity.token },
  );
  expect(lead).toMatchObject({
    first_name: 'Avi', last_name: 'Mizrahi', email: 'avi.gravity@example.com', phone: '+972524445566', required_amount: 1_500_000,
    notes: 'Looking to refinance', landing_path: 'https://advisor.example.co.il/apply/', source: null,
  });
  expect(lead.details_note).toBe('6: Tel Aviv');
});

test('WPForms entry (fields by index with name, value and type)', async () => {
  const lead = await leadFor({
    form_id: '1234', entry_id: '56',
    fields: {
      0: { name: 'Name', value: 'Noa Peretz', id: 0, type: 'name', first: 'Noa', middle: '', last: 'Peretz' },
      1: { name: 'Email', value: 'noa.wpforms@example.com', id: 1, type: 'email' },
      2: { name: 'Phone', value: '(054) 555-6677', id: 2, type: 'phone' },
      3: { name: 'Loan amount', value: '₪ 980,000', id: 3, type: 'number' },
      4: { name: 'Comment or Message', value: 'Weekdays only', id: 4, type: 'textarea' },
    },
  });
  expect(lead).toMatchObject({ first_name: 'Noa', last_name: 'Peretz', email: 'noa.wpforms@example.com', phone: '+972545556677', required_amount: 980_000 });
  expect(lead.details_note).toBe('Comment or Message: Weekdays only');
});

test('Facebook Lead Ads lead (field_data with values lists, campaign_name → utm_campaign)', async () => {
  const lead = await leadFor({
    id: '1234567890123456', created_time: '2025-07-01T09:15:22+0000', ad_id: '23851234567890', ad_name: 'Refinance video',
    adset_id: '23851234567891', adset_name: 'Israel 25-45', campaign_id: '23851234567892', campaign_name: 'Refinance Summer',
    form_id: '987654321', is_organic: false, platform: 'fb',
    field_data: [
      { name: 'full_name', values: ['Eyal Katz'] },
      { name: 'phone_number', values: ['+972556667788'] },
      { name: 'email', values: ['eyal.fb@example.com'] },
      { name: 'מה_סכום_המשכנתא_הדרוש?', values: ['1,000,000'] },
    ],
  });
  expect(lead).toMatchObject({ first_name: 'Eyal', last_name: 'Katz', phone: '+972556667788', email: 'eyal.fb@example.com', utm_campaign: 'Refinance Summer' });
  expect(lead.details_note).toBe('ad_name: Refinance video\nadset_name: Israel 25-45\nמה_סכום_המשכנתא_הדרוש?: 1,000,000');
});

test('Google Ads lead form webhook (user_column_data; google_key never stored)', async () => {
  const lead = await leadFor({
    lead_id: 'TeSter-123-ABCDEFGHIJKLMNOPQRSTUVWXYZ-abcdefghijklmnopqrstuvwxyz-0123456789',
    user_column_data: [
      { column_name: 'Full Name', string_value: 'Ron Shapiro', column_id: 'FULL_NAME' },
      { column_name: 'User Phone', string_value: '+16505550123', column_id: 'PHONE_NUMBER' },
      { column_name: 'User Email', string_value: 'ron.google@example.com', column_id: 'EMAIL' },
      { column_name: 'Postal Code', string_value: '94043', column_id: 'POSTAL_CODE' },
    ],
    api_version: '1.0', form_id: 40000000000, campaign_id: 20000000000, google_key: 'very-secret-google-key', is_test: true,
    gcl_id: 'EAIaIQobChMI', adgroup_id: 30000000000, creative_id: 50000000000,
  });
  expect(lead).toMatchObject({ first_name: 'Ron', last_name: 'Shapiro', phone: '+16505550123', email: 'ron.google@example.com' });
  expect(lead.details_note).toBe('Postal Code: 94043\ngcl_id: EAIaIQobChMI');
  expect(JSON.stringify(lead)).not.toContain('very-secret-google-key');
});

test('Typeform webhook (form_response answers by type, question titles mapped, hidden utm fields)', async () => {
  const typeform = await createIntake(
    runtime, tenant.organizationId, '--name', 'Typeform', '--duplicate-mode', 'none',
    '--mapping', JSON.stringify({ 'What is your name?': 'full_name', 'How much do you need?': 'required_amount', 'Do you already own a property?': 'has_property' }),
  );
  const question = (id: string, title: string, type: string) => ({ id, title, type, ref: `${id.toLowerCase()}_ref` });
  const answerField = (id: string, type: string) => ({ id, type, ref: `${id.toLowerCase()}_ref` });
  const lead = await leadFor(
    {
      event_id: '01J1Z2X3Y4', event_type: 'form_response',
      form_response: {
        form_id: 'lT4Z3j', token: 'a3a12ec67a1365927098a606107fac15', landed_at: '2025-07-01T09:10:00Z', submitted_at: '2025-07-01T09:15:22Z',
        hidden: { utm_source: 'newsletter', utm_medium: 'email' },
        calculated: { score: 7 },
        definition: {
          id: 'lT4Z3j', title: 'Mortgage check',
          fields: [
            question('Q1', 'What is your name?', 'short_text'), question('Q2', 'Your email?', 'email'), question('Q3', 'Phone', 'phone_number'),
            question('Q4', 'How much do you need?', 'number'), question('Q5', 'Do you already own a property?', 'yes_no'),
            question('Q6', 'Purpose', 'multiple_choice'), question('Q7', 'Anything else?', 'long_text'),
          ],
        },
        answers: [
          { type: 'text', text: 'Tamar Golan', field: answerField('Q1', 'short_text') },
          { type: 'email', email: 'tamar.typeform@example.com', field: answerField('Q2', 'email') },
          { type: 'phone_number', phone_number: '+972507778899', field: answerField('Q3', 'phone_number') },
          { type: 'number', number: 1200000, field: answerField('Q4', 'number') },
          { type: 'boolean', boolean: true, field: answerField('Q5', 'yes_no') },
          { type: 'choice', choice: { label: 'Refinance' }, field: answerField('Q6', 'multiple_choice') },
          { type: 'text', text: 'Prefer WhatsApp', field: answerField('Q7', 'long_text') },
        ],
      },
    },
    { token: typeform.token },
  );
  expect(lead).toMatchObject({
    first_name: 'Tamar', last_name: 'Golan', email: 'tamar.typeform@example.com', phone: '+972507778899', required_amount: 1_200_000,
    has_property: true, mortgage_purpose: 'Refinance', utm_source: 'newsletter', utm_medium: 'email',
  });
  expect(lead.details_note).toBe('Anything else?: Prefer WhatsApp');
});

test('Jotform webhook (multipart with rawRequest JSON, q<N>_ keys, pretty summary)', async () => {
  const rawRequest = {
    slug: 'submit/251234567890', jsExecutionTracker: 'build-date-1751360000000', submitSource: 'form', buildDate: '1751360000000',
    q3_fullName: { first: 'Oren', last: 'Ben David' }, q4_email: 'oren.jotform@example.com', q5_phoneNumber: { full: '050-999-1122' },
    q6_mortgageAmount: '900000', q7_message: 'Evening calls', q8_city: 'Ashdod', event_id: '1751360000000_251234567890_abc', timeToSubmit: '33',
    validatedNewRequiredFieldIDs: '{"new":1}', path: '/submit/251234567890',
  };
  const body = new FormData();
  for (const [name, value] of Object.entries({
    action: '', webhookURL: 'https://example.invalid/hook', username: 'advisor', formID: '251234567890', type: 'WEB', customParams: '',
    product: 'false', formTitle: 'Mortgage form', customTitle: '', submissionID: '5987654321012345678',
    pretty: 'Full Name:Oren Ben David, Email:oren.jotform@example.com, Phone Number:050-999-1122', ip: '203.0.113.10',
    rawRequest: JSON.stringify(rawRequest), appID: '', isSilent: 'false', teamID: '', documentID: '',
  })) body.append(name, value);
  const lead = await leadFor(body);
  expect(lead).toMatchObject({
    first_name: 'Oren', last_name: 'Ben David', email: 'oren.jotform@example.com', phone: '+972509991122', required_amount: 900_000, notes: 'Evening calls',
  });
  expect(lead.details_note).toBe('q8_city: Ashdod');
});

test('Webflow form_submission webhook (payload.data; the form name is not the person)', async () => {
  const lead = await leadFor({
    triggerType: 'form_submission',
    payload: {
      name: 'Mortgage Contact', siteId: '65427cf400e02b306eaa049c',
      data: { 'First Name': 'Shira', 'Last Name': 'Azulay', Email: 'shira.webflow@example.com', Phone: '058-123-9876', Message: 'Hi there', Budget: '2M' },
      schema: [{ fieldName: 'First Name', fieldType: 'FormTextInput', fieldElementId: '6b3c2a1d' }],
      submittedAt: '2025-07-01T09:15:22.000Z', id: '6321a6b5c1a9d2e3f4a5b6c7', formId: '65429eadebe8a9f3a30f62d0', formElementId: '4e038d2c-6a1e',
    },
  });
  expect(lead).toMatchObject({ first_name: 'Shira', last_name: 'Azulay', email: 'shira.webflow@example.com', phone: '+972581239876', notes: 'Hi there' });
  expect(lead.details_note).toBe('Budget: 2M');
});

test('HubSpot workflow webhook (contact properties with value and versions)', async () => {
  const property = (value: string) => ({ value, versions: [{ value, 'source-type': 'FORM', 'source-id': 'abc', timestamp: 1751360000000, selected: false }] });
  const lead = await leadFor({
    vid: 3234574, 'canonical-vid': 3234574, 'merged-vids': [], 'portal-id': 62515, 'is-contact': true,
    properties: {
      firstname: property('Lior'), lastname: property('Friedman'), email: property('lior.hubspot@example.com'),
      phone: property('+972 50-432-1000'), message: property('Call after 5'), hs_analytics_source: property('PAID_SOCIAL'),
    },
    'form-submissions': [{ 'form-id': 'f1', timestamp: 1751360000000, 'page-url': 'https://advisor.example.co.il/' }],
    'identity-profiles': [{ vid: 3234574, identities: [{ type: 'EMAIL', value: 'lior.hubspot@example.com' }] }],
  });
  expect(lead).toMatchObject({ first_name: 'Lior', last_name: 'Friedman', email: 'lior.hubspot@example.com', phone: '+972504321000', notes: 'Call after 5' });
  expect(lead.details_note).toBe('hs_analytics_source: PAID_SOCIAL');
});

test('HubSpot forms submission shape (fields list of name/value, context metadata)', async () => {
  const lead = await leadFor({
    submittedAt: '1751360000000',
    fields: [
      { objectTypeId: '0-1', name: 'firstname', value: 'Gal' }, { objectTypeId: '0-1', name: 'lastname', value: 'Oz' },
      { objectTypeId: '0-1', name: 'mobilephone', value: '052-000-1111' }, { objectTypeId: '0-1', name: 'email', value: 'gal.hsform@example.com' },
    ],
    context: { hutk: 'abc123', pageUri: 'https://advisor.example.co.il/lp', pageName: 'LP' },
  });
  expect(lead).toMatchObject({ first_name: 'Gal', last_name: 'Oz', email: 'gal.hsform@example.com', phone: '+972520001111', details_note: null });
});

test('Unbounce webhook (urlencoded with data.json and data.xml)', async () => {
  const data = {
    name: ['Yael Dahan'], email_address: ['yael.unbounce@example.com'], phone_number: ['050-246-8100'], how_much_do_you_need: ['1000000'],
    ip_address: ['203.0.113.10'], page_uuid: ['a1b2c3d4-e5f6'], variant: ['a'], time_submitted: ['09:15 AM UTC'], date_submitted: ['2025-07-01'],
    page_url: ['https://unbouncepages.com/mortgage/'], page_name: ['Mortgage LP'],
  };
  const body = form([
    ['page_id', 'a1b2c3d4-e5f6'], ['page_url', 'https://unbouncepages.com/mortgage/'], ['page_name', 'Mortgage LP'], ['variant', 'a'],
    ['data.json', JSON.stringify(data)], ['data.xml', '<?xml version="1.0"?><form_data></form_data>'],
  ]);
  const lead = await leadFor(body);
  expect(lead).toMatchObject({
    first_name: 'Yael', last_name: 'Dahan', email: 'yael.unbounce@example.com', phone: '+972502468100', landing_path: 'https://unbouncepages.com/mortgage/',
  });
  expect(lead.details_note).toBe('how_much_do_you_need: 1000000');
});

test('Zapier "Webhooks by Zapier" POST (labels as keys, a source in the request)', async () => {
  const lead = await leadFor({
    'First Name': 'Itai', 'Last Name': 'Segal', 'Phone Number': '050-135-7911', Email: 'ITAI.Zapier@Example.com', 'Lead Source': 'Zapier - Calendly',
    'UTM Campaign': 'retargeting', 'Monthly Income': '32,000', 'Own Property': 'No', Notes: 'Booked a call', 'Meeting time': '2025-07-03 10:00',
  });
  expect(lead).toMatchObject({
    first_name: 'Itai', last_name: 'Segal', phone: '+972501357911', email: 'ITAI.Zapier@Example.com', source: 'Zapier - Calendly',
    utm_campaign: 'retargeting', total_income: 32_000, has_property: false, notes: 'Booked a call',
  });
  expect(lead.details_note).toBe('Meeting time: 2025-07-03 10:00');
});
