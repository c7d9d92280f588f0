import { useTestRuntime } from '../support/test-runtime';

/**
 * System lists (resources.md §2, spec §4 "System lists", §5 permissions, §11): `GET /lists` and
 * `GET /lists/{name}`, over real HTTP. The expected values are transcribed from resources.md §2
 * (and §9.6 for the timeline event types), independently of the implementation's definition.
 */
const runtime = useTestRuntime({ events: false });

const EXPECTED: Record<string, Array<[value: string, label: string, label_he: string]>> = {
  'id-types': [
    ['personal_id', 'Israeli ID', 'תעודת זהות'],
    ['passport', 'Passport', 'דרכון'],
    ['company', 'Company', 'חברה'],
    ['association', 'Association', 'עמותה'],
  ],
  'marital-statuses': [
    ['single', 'Single', 'רווק/ה'],
    ['married', 'Married', 'נשוי/אה'],
    ['divorced', 'Divorced', 'גרוש/ה'],
    ['widowed', 'Widowed', 'אלמן/ה'],
    ['separated', 'Separated', 'פרוד/ה'],
    ['common_law', 'Common-law partner', 'ידוע/ה בציבור'],
  ],
  'education-levels': [
    ['none', 'None', 'ללא'],
    ['high_school', 'High school', 'תיכונית'],
    ['vocational', 'Vocational', 'מקצועית'],
    ['bachelor', "Bachelor's degree", 'תואר ראשון'],
    ['master', "Master's degree", 'תואר שני'],
    ['doctorate', 'Doctorate', 'תואר שלישי'],
    ['other', 'Other', 'אחר'],
  ],
  'residence-types': [
    ['owner', 'Owns a home', 'בעלות על דירה'],
    ['renter', 'Renting', 'שכירות'],
    ['with_parents', 'With parents', 'אצל ההורים'],
    ['public_housing', 'Public housing', 'דיור ציבורי'],
    ['other', 'Other', 'אחר'],
  ],
  'employment-types': [
    ['salaried', 'Salaried', 'שכיר/ה'],
    ['self_employed', 'Self-employed', 'עצמאי/ת'],
    ['controlling_shareholder', 'Controlling shareholder', 'בעל/ת שליטה'],
    ['pensioner', 'Pensioner', 'פנסיונר/ית'],
    ['unemployed', 'Not employed', 'לא עובד/ת'],
    ['other', 'Other', 'אחר'],
  ],
  'income-types': [
    ['salary', 'Salary', 'משכורת'],
    ['business', 'Business income', 'הכנסה מעסק'],
    ['pension', 'Pension', 'פנסיה'],
    ['rental', 'Rental income', 'הכנסה משכירות'],
    ['allowance', 'Allowance', 'קצבה'],
    ['alimony', 'Alimony', 'מזונות'],
    ['other', 'Other', 'אחר'],
  ],
  'obligation-types': [
    ['loan', 'Loan', 'הלוואה'],
    ['mortgage', 'Existing mortgage', 'משכנתא קיימת'],
    ['credit_card', 'Credit card', 'כרטיס אשראי'],
    ['car_loan', 'Car loan', 'הלוואת רכב'],
    ['leasing', 'Leasing', 'ליסינג'],
    ['guarantee', 'Guarantee', 'ערבות'],
    ['other', 'Other', 'אחר'],
  ],
  'banks': [
    ['10', 'Bank Leumi', 'בנק לאומי'],
    ['11', 'Israel Discount Bank', 'בנק דיסקונט'],
    ['12', 'Bank Hapoalim', 'בנק הפועלים'],
    ['13', 'Union Bank - Igud', 'בנק איגוד'],
    ['14', 'Bank Otsar Ha-Hayal', 'בנק אוצר החייל'],
    ['17', 'Mercantile Discount Bank', 'בנק מרכנתיל דיסקונט'],
    ['20', 'Mizrahi-Tefahot Bank', 'בנק מזרחי טפחות'],
    ['31', 'First International Bank', 'הבנק הבינלאומי'],
    ['46', 'Bank Massad', 'בנק מסד'],
    ['52', 'Poalei Agudat Israel Bank', 'בנק פועלי אגודת ישראל'],
    ['54', 'Bank of Jerusalem', 'בנק ירושלים'],
    ['other', 'Other', 'אחר'],
  ],
  'mortgage-types': [
    ['purchase', 'Purchase', 'רכישה'],
    ['refinance', 'Refinance', 'מחזור'],
    ['any_purpose', 'Any-purpose loan', 'משכנתא לכל מטרה'],
    ['construction', 'Self-build', 'בנייה עצמית'],
    ['bridge', 'Bridge loan', 'הלוואת גישור'],
    ['reverse', 'Reverse mortgage', 'משכנתא הפוכה'],
  ],
  'mortgage-purposes': [
    ['first_home', 'First or only home', 'דירה יחידה'],
    ['replacement_home', 'Replacement home', 'דירה חלופית'],
    ['investment', 'Investment property', 'דירה להשקעה'],
    ['any_purpose', 'Any purpose', 'לכל מטרה'],
    ['refinance', 'Refinance', 'מחזור'],
  ],
  'borrower-relationships': [
    ['spouse', 'Spouse', 'בן/בת זוג'],
    ['parent', 'Parent', 'הורה'],
    ['child', 'Child', 'ילד/ה'],
    ['partner', 'Partner', 'שותף/ה'],
    ['guarantor', 'Guarantor', 'ערב/ה'],
    ['other', 'Other', 'אחר'],
  ],
  'contact-types': [
    ['banker', 'Banker', 'בנקאי/ת'],
    ['appraiser', 'Appraiser', 'שמאי/ת'],
    ['lawyer', 'Lawyer', 'עורך/ת דין'],
    ['mortgage_advisor', 'Mortgage advisor', 'יועץ/ת משכנתאות'],
    ['real_estate_broker', 'Real-estate broker', 'מתווך/ת'],
    ['housing_company', 'Housing company', 'חברה משכנת'],
    ['insurance_agent', 'Insurance agent', 'סוכן/ת ביטוח'],
    ['accountant', 'Accountant', 'רואה/ת חשבון'],
    ['other', 'Other', 'אחר'],
  ],
  'task-statuses': [
    ['open', 'Open', 'פתוחה'],
    ['in_progress', 'In progress', 'בטיפול'],
    ['completed', 'Completed', 'הושלמה'],
    ['cancelled', 'Cancelled', 'בוטלה'],
  ],
  'task-priorities': [
    ['low', 'Low', 'נמוכה'],
    ['normal', 'Normal', 'רגילה'],
    ['high', 'High', 'גבוהה'],
    ['urgent', 'Urgent', 'דחופה'],
  ],
  'note-types': [
    ['general', 'General', 'כללי'],
    ['call', 'Phone call', 'שיחה'],
    ['meeting', 'Meeting', 'פגישה'],
    ['email', 'Email', 'דוא"ל'],
    ['status_comment', 'Status comment', 'הערת סטטוס'],
    ['internal', 'Internal', 'פנימי'],
  ],
  'reminder-channels': [
    ['in_app', 'In app', 'באפליקציה'],
    ['email', 'Email', 'דוא"ל'],
    ['sms', 'SMS', 'מסרון'],
    ['whatsapp', 'WhatsApp', 'וואטסאפ'],
  ],
  'reminder-statuses': [
    ['scheduled', 'Scheduled', 'מתוזמנת'],
    ['sent', 'Sent', 'נשלחה'],
    ['cancelled', 'Cancelled', 'בוטלה'],
  ],
  'document-statuses': [
    ['missing', 'Missing', 'חסר'],
    ['requested', 'Requested', 'התבקש'],
    ['received', 'Received', 'התקבל'],
    ['approved', 'Approved', 'אושר'],
    ['rejected', 'Rejected', 'נדחה'],
    ['dismissed', 'Not needed', 'לא נדרש'],
  ],
  'signature-statuses': [
    ['pending', 'Awaiting signature', 'ממתין לחתימה'],
    ['signed', 'Signed', 'נחתם'],
    ['declined', 'Declined', 'סורב'],
  ],
  'charge-statuses': [
    ['pending', 'Pending', 'ממתין לתשלום'],
    ['partial', 'Partly paid', 'שולם חלקית'],
    ['paid', 'Paid', 'שולם'],
    ['cancelled', 'Cancelled', 'בוטל'],
  ],
  'milestone-statuses': [
    ['pending', 'Not started', 'טרם התחיל'],
    ['in_progress', 'In progress', 'בתהליך'],
    ['completed', 'Completed', 'הושלם'],
    ['skipped', 'Skipped', 'דולג'],
  ],
  'custom-field-types': [
    ['text', 'Text', 'טקסט'],
    ['number', 'Number', 'מספר'],
    ['date', 'Date', 'תאריך'],
    ['boolean', 'Yes/No', 'כן/לא'],
    ['select', 'Choice', 'בחירה מרשימה'],
  ],
  'mix-tracks': [
    ['prime', 'Prime', 'פריים'],
    ['fixed_unlinked', 'Fixed, unlinked', 'קבועה לא צמודה'],
    ['fixed_linked', 'Fixed, CPI-linked', 'קבועה צמודה'],
    ['variable_5_unlinked', 'Variable every 5 years, unlinked', 'משתנה כל 5 לא צמודה'],
    ['variable_5_linked', 'Variable every 5 years, CPI-linked', 'משתנה כל 5 צמודה'],
    ['foreign_currency', 'Foreign currency', 'מט"ח'],
    ['eligibility', 'Eligibility loan', 'הלוואת זכאות'],
  ],
  'mix-indexes': [
    ['cpi', 'Consumer price index', 'מדד המחירים לצרכן'],
    ['usd', 'US dollar', 'דולר'],
    ['eur', 'Euro', 'אירו'],
    ['none', 'No index', 'ללא הצמדה'],
  ],
  'analysis-types': [
    ['affordability', 'Affordability', 'כושר החזר'],
    ['comparison', 'Offer comparison', 'השוואת הצעות'],
    ['refinance', 'Refinance check', 'כדאיות מחזור'],
    ['other', 'Other', 'אחר'],
  ],
  'timeline-event-types': [
    ['file_created', 'File created', 'תיק נפתח'],
    ['status_changed', 'Status changed', 'שינוי סטטוס'],
    ['assigned', 'Assignee changed', 'שינוי אחראי'],
    ['borrower_added', 'Borrower added', 'לווה נוסף'],
    ['note_added', 'Note added', 'הערה נוספה'],
    ['task_created', 'Task created', 'משימה נוצרה'],
    ['task_completed', 'Task completed', 'משימה הושלמה'],
    ['reminder_sent', 'Reminder sent', 'תזכורת נשלחה'],
    ['document_status_changed', 'Document status changed', 'עדכון סטטוס מסמך'],
    ['charge_created', 'Charge created', 'חיוב נוצר'],
    ['payment_recorded', 'Payment recorded', 'תשלום נרשם'],
    ['charge_paid', 'Charge paid', 'חיוב שולם'],
    ['milestone_completed', 'Milestone completed', 'אבן דרך הושלמה'],
  ],
};

const NAMES = Object.keys(EXPECTED);

describe('resources.md §2: GET /lists', () => {
  test('resources.md §2: {data: [{name, count}], count} with every list of §2 in order, count = number of values', async () => {
    const tenant = await runtime.organization();
    const response = await runtime.request('GET', '/lists', { key: tenant.apiKey });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(response.body).toEqual({ data: NAMES.map((name) => ({ name, count: EXPECTED[name].length })), count: NAMES.length });
    expect(response.body.count).toBe(26);
    expect(response.body.data).toContainEqual({ name: 'timeline-event-types', count: 13 });
    expect(response.body.data).toContainEqual({ name: 'banks', count: 12 });
  });

  test('resources.md §2: unpaged — limit and offset are ignored, count is the array length', async () => {
    const tenant = await runtime.organization();
    const names = await runtime.request('GET', '/lists?limit=1&offset=3', { key: tenant.apiKey });
    expect(names.status).toBe(200);
    expect(names.body.data).toHaveLength(NAMES.length);
    expect(names.body.count).toBe(NAMES.length);
    const banks = await runtime.request('GET', '/lists/banks?limit=2&offset=5', { key: tenant.apiKey });
    expect(banks.status).toBe(200);
    expect(banks.body.data).toHaveLength(12);
    expect(banks.body.count).toBe(12);
    expect(banks.body.data[0]).toEqual({ value: '10', label: 'Bank Leumi', label_he: 'בנק לאומי' });
  });
});

describe('resources.md §2: GET /lists/{name}', () => {
  test('resources.md §2: every list answers {data: [{value, label, label_he}], count} with exactly the values of §2, in order', async () => {
    const tenant = await runtime.organization();
    for (const name of NAMES) {
      const response = await runtime.request('GET', `/lists/${name}`, { key: tenant.apiKey });
      const expected = EXPECTED[name].map(([value, label, label_he]) => ({ value, label, label_he }));
      expect({ name, status: response.status, body: response.body }).toEqual({ name, status: 200, body: { data: expected, count: expected.length } });
      for (const entry of response.body.data) {
        expect(Object.keys(entry).sort()).toEqual(['label', 'label_he', 'value']);
        expect(typeof entry.value).toBe('string');
      }
    }
  });

  test('resources.md §2: exact entries — banks 12 Bank Hapoalim / בנק הפועלים, contact-types, id-types, the 13 timeline event types', async () => {
    const tenant = await runtime.organization();
    const banks = await runtime.request('GET', '/lists/banks', { key: tenant.apiKey });
    expect(banks.body.data[2]).toEqual({ value: '12', label: 'Bank Hapoalim', label_he: 'בנק הפועלים' });
    expect(banks.body.data.map((entry: { value: string }) => entry.value)).toEqual(['10', '11', '12', '13', '14', '17', '20', '31', '46', '52', '54', 'other']);
    const contactTypes = await runtime.request('GET', '/lists/contact-types', { key: tenant.apiKey });
    expect(contactTypes.body.data).toContainEqual({ value: 'mortgage_advisor', label: 'Mortgage advisor', label_he: 'יועץ/ת משכנתאות' });
    expect(contactTypes.body.data).toContainEqual({ value: 'housing_company', label: 'Housing company', label_he: 'חברה משכנת' });
    const idTypes = await runtime.request('GET', '/lists/id-types', { key: tenant.apiKey });
    expect(idTypes.body).toEqual({
      data: [
        { value: 'personal_id', label: 'Israeli ID', label_he: 'תעודת זהות' },
        { value: 'passport', label: 'Passport', label_he: 'דרכון' },
        { value: 'company', label: 'Company', label_he: 'חברה' },
        { value: 'association', label: 'Association', label_he: 'עמותה' },
      ],
      count: 4,
    });
    const timeline = await runtime.request('GET', '/lists/timeline-event-types', { key: tenant.apiKey });
    expect(timeline.body.count).toBe(13);
    expect(timeline.body.data.map((entry: { value: string }) => entry.value)).toEqual([
      'file_created',
      'status_changed',
      'assigned',
      'borrower_added',
      'note_added',
      'task_created',
      'task_completed',
      'reminder_sent',
      'document_status_changed',
      'charge_created',
      'payment_recorded',
      'charge_paid',
      'milestone_completed',
    ]);
    expect(timeline.body.data[8]).toEqual({ value: 'document_status_changed', label: 'Document status changed', label_he: 'עדכון סטטוס מסמך' });
    const notes = await runtime.request('GET', '/lists/note-types', { key: tenant.apiKey });
    expect(notes.body.data).toContainEqual({ value: 'email', label: 'Email', label_he: 'דוא"ל' });
  });

  test('resources.md §2: an unknown name is 404 (also names of organization-defined values, other spellings and Object.prototype keys)', async () => {
    const tenant = await runtime.organization();
    const unknown = ['no-such-list', 'Banks', 'id_types', 'statuses', 'payment-sources', 'lead-statuses', '__proto__', 'constructor', 'toString', 'hasOwnProperty'];
    for (const name of unknown) {
      const response = await runtime.request('GET', `/lists/${name}`, { key: tenant.apiKey });
      expect({ name, status: response.status }).toEqual({ name, status: 404 });
      expect(response.body).toMatchObject({ status: 404 });
      expect(typeof response.body.error).toBe('string');
      expect(response.body.data).toBeUndefined();
    }
  });
});

describe('resources.md §2 / spec §4: only GET (405 with Allow)', () => {
  test('resources.md §2: POST, PUT, PATCH, DELETE on /lists and /lists/{name} → 405 with Allow: GET, with or without a key', async () => {
    const tenant = await runtime.organization();
    for (const path of ['/lists', '/lists/banks', '/lists/no-such-list']) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        const response = await runtime.request(method, path, { key: tenant.apiKey, body: { value: 'x' } });
        expect({ method, path, status: response.status, allow: response.headers.get('allow') }).toEqual({ method, path, status: 405, allow: 'GET' });
        expect(response.body).toMatchObject({ status: 405 });
      }
    }
    const anonymous = await runtime.request('POST', '/lists', { body: {} });
    expect(anonymous.status).toBe(405);
    expect(anonymous.headers.get('allow')).toBe('GET');
    const after = await runtime.request('GET', '/lists/banks', { key: tenant.apiKey });
    expect(after.body.count).toBe(12);
  });
});

describe('resources.md §2 / §11, spec §5: permission lists:read, read, admin or *', () => {
  test.each(['lists:read', 'read', 'admin', '*', 'lists:*', 'leads:read,lists:read'])('resources.md §11: a key with %s reads /lists and /lists/{name}', async (permissions) => {
    const tenant = await runtime.organization(permissions);
    const names = await runtime.request('GET', '/lists', { key: tenant.apiKey });
    expect(names.status).toBe(200);
    expect(names.body.count).toBe(NAMES.length);
    const values = await runtime.request('GET', '/lists/mortgage-types', { key: tenant.apiKey });
    expect(values.status).toBe(200);
    expect(values.body.count).toBe(6);
  });

  test.each(['leads:read', 'customers:read', 'lists:write', 'write', 'mortgage-files:*'])('resources.md §11: a key with only %s gets 403 on /lists and /lists/{name}', async (permissions) => {
    const tenant = await runtime.organization(permissions);
    for (const path of ['/lists', '/lists/banks']) {
      const response = await runtime.request('GET', path, { key: tenant.apiKey });
      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      expect(response.body).toMatchObject({ status: 403 });
      expect(response.body.data).toBeUndefined();
    }
  });

  test('spec §5: without a key /lists is 401 missing_api_key; an unknown key is 401 invalid_api_key', async () => {
    const missing = await runtime.request('GET', '/lists/banks');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ status: 401, reason: 'missing_api_key' });
    const invalid = await runtime.request('GET', '/lists', { key: 'mk_not_a_real_key' });
    expect(invalid.status).toBe(401);
    expect(invalid.body).toMatchObject({ status: 401, reason: 'invalid_api_key' });
  });
});

describe('resources.md §2: the validators use exactly these values (one definition serves both)', () => {
  test('resources.md §2: every contact-types value is accepted as a contact type, a value outside the list is 400', async () => {
    const tenant = await runtime.organization();
    const types = (await runtime.request('GET', '/lists/contact-types', { key: tenant.apiKey })).body.data.map((entry: { value: string }) => entry.value);
    expect(types).toEqual(EXPECTED['contact-types'].map(([value]) => value));
    for (const type of types) {
      const response = await runtime.request('POST', '/contacts', { key: tenant.apiKey, body: { type, first_name: 'Avi' } });
      expect({ type, status: response.status, stored: response.body.type }).toEqual({ type, status: 201, stored: type });
    }
    for (const type of ['Banker', 'plumber', 'Banker ', '']) {
      const response = await runtime.request('POST', '/contacts', { key: tenant.apiKey, body: { type, first_name: 'Avi' } });
      expect({ type, status: response.status }).toEqual({ type, status: 400 });
    }
  });

  test('resources.md §2: every value of marital-statuses, education-levels, residence-types, employment-types and id-types is accepted on a customer', async () => {
    const tenant = await runtime.organization();
    const fields: Array<[field: string, list: string]> = [
      ['marital_status', 'marital-statuses'],
      ['education', 'education-levels'],
      ['residence_type', 'residence-types'],
      ['employment_type', 'employment-types'],
    ];
    for (const [field, list] of fields) {
      const values = EXPECTED[list].map(([value]) => value);
      for (const value of values) {
        const response = await runtime.request('POST', '/customers', { key: tenant.apiKey, body: { first_name: 'Dana', last_name: 'Cohen', [field]: value } });
        expect({ field, value, status: response.status, stored: response.body[field] }).toEqual({ field, value, status: 201, stored: value });
      }
    }
    for (const id_type of EXPECTED['id-types'].map(([value]) => value)) {
      const response = await runtime.request('POST', '/customers', { key: tenant.apiKey, body: { entity_name: 'Entity', id_type } });
      expect({ id_type, status: response.status, stored: response.body.id_type }).toEqual({ id_type, status: 201, stored: id_type });
    }
  });
});
