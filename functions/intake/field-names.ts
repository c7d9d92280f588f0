import { isUnsafeKey } from '../../shared/validation/safe-keys';

/**
 * Field names the intake recognizes by itself (spec §4 "Field matching order", steps 2 and 3):
 * the built-in names of each mapping target, Hebrew labels, and the technical fields of form
 * plugins and ad platforms that never belong on a lead.
 */

export const SCALAR_TARGETS = [
  'first_name',
  'last_name',
  'full_name',
  'phone',
  'email',
  'notes',
  'source',
  'source_id',
  'mortgage_purpose',
  'required_amount',
  'total_income',
  'has_property',
  'next_follow_up_at',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'referrer_url',
  'landing_path',
] as const;

export type ScalarTarget = (typeof SCALAR_TARGETS)[number];
export type CustomFieldTarget = `custom_fields.${string}`;
/** A mapping target of spec §4: a lead field, a custom field, or `ignore`. */
export type MappingTarget = ScalarTarget | CustomFieldTarget | 'ignore';

export const CUSTOM_FIELD_PREFIX = 'custom_fields.';
const CUSTOM_FIELD_NAME = /^[A-Za-z0-9_\-. \u0590-\u05FF]{1,100}$/;

export function isMappingTarget(value: string): value is MappingTarget {
  if (value === 'ignore') return true;
  if ((SCALAR_TARGETS as readonly string[]).includes(value)) return true;
  if (!value.startsWith(CUSTOM_FIELD_PREFIX)) return false;
  const name = value.slice(CUSTOM_FIELD_PREFIX.length);
  return CUSTOM_FIELD_NAME.test(name) && !isUnsafeKey(name);
}

/**
 * Case-insensitive; space, hyphen and underscore equivalent; trailing `*` or `:` ignored (spec §4).
 * Separators are dropped rather than unified, so `phone number`, `phone_number`, `phonenumber` and
 * camelCase `phoneNumber` (Jotform, HubSpot) are one name, as the spec's own table pairs them.
 * Hebrew gershayim and typographic quotes count as a plain double quote (דוא"ל).
 */
export function normalizeFieldName(name: string): string {
  return name
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\u05F4\u201C\u201D\u201E]/g, '"')
    .replace(/[\u05F3\u2018\u2019]/g, "'")
    .trim()
    .replace(/[\s*:]+$/u, '')
    .replace(/[\s\-_]+/g, '');
}

/** The table of spec §4, plus Hebrew labels and the `campaign_name` alias. */
const BUILT_IN_NAMES: Record<ScalarTarget, string[]> = {
  first_name: ['first_name', 'firstname', 'first name', 'fname', 'first', 'given_name', 'שם פרטי'],
  last_name: ['last_name', 'lastname', 'last name', 'lname', 'last', 'surname', 'family_name', 'שם משפחה'],
  full_name: ['name', 'full_name', 'fullname', 'your-name', 'contact_name', 'שם', 'שם מלא', 'שם ושם משפחה'],
  phone: [
    'phone', 'tel', 'mobile', 'telephone', 'phone_number', 'phonenumber', 'your-tel', 'your-phone', 'cell', 'cellphone',
    'mobile_phone', 'whatsapp', 'טלפון', 'נייד', 'פלאפון', 'מספר טלפון', 'טלפון נייד', 'מספר נייד', 'מספר פלאפון',
  ],
  email: ['email', 'e-mail', 'mail', 'email_address', 'your-email', 'אימייל', 'מייל', 'דוא"ל', 'דואל', 'דואר אלקטרוני', 'כתובת מייל', 'כתובת אימייל'],
  notes: [
    'message', 'notes', 'note', 'comments', 'comment', 'your-message', 'details', 'inquiry', 'enquiry', 'הודעה', 'הערות', 'הערה',
    'תוכן ההודעה', 'פרטים',
  ],
  source: ['source', 'lead_source', 'how_did_you_hear', 'מקור', 'מקור הליד'],
  source_id: [],
  mortgage_purpose: ['mortgage_purpose', 'purpose', 'loan_purpose', 'מטרת המשכנתא', 'מטרת ההלוואה'],
  required_amount: ['required_amount', 'amount', 'loan_amount', 'mortgage_amount', 'סכום', 'סכום משכנתא', 'סכום המשכנתא', 'סכום הלוואה'],
  total_income: ['total_income', 'income', 'monthly_income', 'הכנסה', 'הכנסה חודשית'],
  has_property: ['has_property', 'own_property', 'owns_property'],
  next_follow_up_at: [],
  utm_source: ['utm_source'],
  utm_medium: ['utm_medium'],
  utm_campaign: ['utm_campaign', 'campaign_name'],
  utm_term: ['utm_term'],
  utm_content: ['utm_content'],
  referrer_url: ['referrer', 'referer', 'referrer_url', 'http_referer', 'document_referrer'],
  landing_path: ['landing_path', 'landing_page', 'page_url', 'source_url', 'form_url', 'page_location'],
};

const BUILT_IN = new Map<string, ScalarTarget>();
for (const [target, names] of Object.entries(BUILT_IN_NAMES) as Array<[ScalarTarget, string[]]>) {
  for (const name of names) BUILT_IN.set(normalizeFieldName(name), target);
}

export function builtInTarget(name: string): ScalarTarget | undefined {
  return BUILT_IN.get(normalizeFieldName(name));
}

/** Technical fields wherever they appear: captcha tokens, nonces, form and submission ids, sender data. */
const TECHNICAL_ANYWHERE = new Set(
  [
    'g-recaptcha-response', 'h-captcha-response', 'cf-turnstile-response', 'recaptcha_token', 'recaptcha_response',
    'form_id', 'form_name', 'form_title', 'post_id', 'queried_id', 'referer_title', 'nonce', 'wpnonce', 'security',
    'submission_id', 'entry_id', 'api_version', 'event_id', 'event_type', 'trigger_type', 'webhook_url', 'user_agent',
    'remote_ip', 'ip', 'ip_address', 'powered_by', 'hutk', 'submitted_at', 'landed_at', 'created_time', 'date_created',
    'date_updated',
  ].map(normalizeFieldName),
);

const CAPTCHA = /captcha|turnstile/;

/**
 * Envelope and entry data of particular senders, dropped only at the top level of a submission
 * recognized as theirs (a form field named `type` or `product` elsewhere is kept).
 */
export type Sender = 'gravity' | 'facebook' | 'google' | 'typeform' | 'jotform' | 'unbounce' | 'hubspot-form';

const SENDER_TECHNICAL: Record<Sender, Set<string>> = Object.fromEntries(
  Object.entries({
    gravity: [
      'id', 'status', 'post_id', 'is_starred', 'is_read', 'currency', 'payment_status', 'payment_date', 'payment_amount',
      'payment_method', 'transaction_id', 'transaction_type', 'is_fulfilled', 'created_by',
    ],
    facebook: [
      'id', 'ad_id', 'adset_id', 'campaign_id', 'is_organic', 'platform', 'page_id', 'leadgen_id', 'partner_name',
      'retailer_item_id', 'custom_disclaimer_responses',
    ],
    google: ['lead_id', 'campaign_id', 'google_key', 'is_test', 'adgroup_id', 'creative_id', 'asset_group_id', 'lead_submit_time'],
    typeform: ['token', 'calculated', 'variables', 'ending'],
    jotform: [
      'action', 'username', 'type', 'customParams', 'product', 'customTitle', 'pretty', 'appID', 'isSilent', 'teamID',
      'documentID', 'event', 'slug', 'jsExecutionTracker', 'submitSource', 'submitDate', 'buildDate', 'uploadServerUrl',
      'eventObserver', 'timeToSubmit', 'validatedNewRequiredFieldIDs', 'path', 'preview',
    ],
    unbounce: ['page_id', 'page_name', 'variant', 'page_uuid', 'time_submitted', 'date_submitted'],
    'hubspot-form': ['submittedAt', 'skipValidation'],
  }).map(([sender, names]) => [sender, new Set(names.map(normalizeFieldName))]),
) as Record<Sender, Set<string>>;

/** Top-level containers of form metadata (Elementor `meta[...]`, HubSpot `context`). */
export const METADATA_CONTAINERS = new Set(['meta', 'metadata', 'context', 'hs_context']);

/** A top-level `form` object holding only these describes the form (Elementor `form[id]`, `form[name]`), not the person. */
export const FORM_DESCRIPTION_KEYS = new Set(['id', 'name', 'title', 'slug', 'type', 'url', 'version']);

/** `_hp` or `honeypot` (spec §5), besides the endpoint's own honeypot field. */
export function isDefaultHoneypotName(name: string): boolean {
  return name.trim().toLowerCase() === '_hp' || normalizeFieldName(name) === 'honeypot';
}

export function isTechnicalName(name: string, topLevelOf?: Sender): boolean {
  if (name.trim().startsWith('_')) return true;
  const normalized = normalizeFieldName(name);
  if (TECHNICAL_ANYWHERE.has(normalized) || CAPTCHA.test(normalized)) return true;
  return topLevelOf !== undefined && SENDER_TECHNICAL[topLevelOf].has(normalized);
}
