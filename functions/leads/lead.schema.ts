import * as z from 'zod';
import { statusItemSchema } from '../../shared/organizations/system-statuses';
import { dateTimeInput } from '../../shared/validation/date-time';
import { amountSchema, freeFormObjectSchema } from '../../shared/validation/bounded';

/** Not trimmed: a lead keeps its strings as sent. */
const text = (max: number) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`);
const nullableText = (max: number) => text(max).nullable();
const dateTime = z.iso.datetime({ offset: true });

/** Fields a client may write on a lead (spec §2 Lead, design "Lead fields beyond spec §2"). */
/** What `next_follow_up_at` takes; a value that is neither form says it once, whichever form it came closer to. */
const FOLLOW_UP_FORMS = 'must be an ISO 8601 date-time with a time zone, or a date YYYY-MM-DD, in the years 0000 to 9999';

const leadFields = z.object({
  first_name: text(200).trim().min(1, 'must not be empty'),
  last_name: nullableText(200),
  phone: nullableText(50),
  email: z.union([z.email({ error: 'must be a valid email address' }).max(320, 'must be at most 320 characters'), z.literal('')]).nullable(),
  source: nullableText(200),
  status: text(64).min(1, 'must not be empty'),
  status_custom: nullableText(200),
  /** Any value is accepted: an id that is not an active user of the organization is ignored (spec §2 User ids). */
  assigned_to: z.union([z.string().max(100), z.null()], { error: 'must be a user id (a string) or null' }),
  notes: nullableText(10_000),
  converted_to_mortgage_file_id: z.uuid().toLowerCase().nullable(),
  tags: z.array(text(100), { error: 'must be an array of strings' }).max(50, 'must have at most 50 tags'),
  utm_source: nullableText(500),
  utm_medium: nullableText(500),
  utm_campaign: nullableText(500),
  utm_term: nullableText(500),
  utm_content: nullableText(500),
  referrer_url: nullableText(2000),
  landing_path: nullableText(2000),
  mortgage_purpose: nullableText(200),
  required_amount: amountSchema().nullable(),
  total_income: amountSchema().nullable(),
  has_property: z.boolean().nullable(),
  next_follow_up_at: z.union([dateTimeInput(), z.iso.date({ error: FOLLOW_UP_FORMS })], { error: FOLLOW_UP_FORMS }).nullable(),
  custom_fields: freeFormObjectSchema().nullable(),
  details_note: nullableText(20_000),
});

export const LEAD_WRITABLE_FIELDS = Object.keys(leadFields.shape) as Array<keyof typeof leadFields.shape>;

export const createLeadSchema = leadFields
  .partial()
  .extend({ first_name: leadFields.shape.first_name })
  .meta({ id: 'CreateLeadRequest' });
export type CreateLeadInput = z.infer<typeof createLeadSchema>;

/** PUT and PATCH: the same partial update; unknown and non-updatable fields are dropped. */
export const updateLeadSchema = leadFields.partial().meta({ id: 'UpdateLeadRequest' });
export type UpdateLeadInput = z.infer<typeof updateLeadSchema>;

export const changeLeadStatusSchema = z
  .object({ status: text(64).min(1, 'must not be empty'), notes: nullableText(10_000).optional() })
  .meta({ id: 'ChangeLeadStatusRequest' });
export type ChangeLeadStatusInput = z.infer<typeof changeLeadStatusSchema>;

export const leadSchema = leadFields
  .extend({
    id: z.uuid(),
    organization_id: z.uuid(),
    lead_number: z.string(),
    first_name: z.string(),
    email: z.string().nullable(),
    next_follow_up_at: z.string().nullable(),
    created_by: z.uuid().nullable(),
    status_changed_at: dateTime.nullable(),
    first_response_time: dateTime.nullable(),
    possible_duplicate_of: z.uuid().nullable(),
    intake_endpoint_id: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Lead' });
export type Lead = z.infer<typeof leadSchema>;

export const LEAD_RESPONSE_FIELDS = Object.keys(leadSchema.shape) as Array<keyof Lead>;

export const leadListSchema = z
  .object({ data: z.array(leadSchema), count: z.number().int() })
  .meta({ id: 'LeadList' });

export const listLeadsQuerySchema = z.object({
  limit: z.string().optional(),
  offset: z.string().optional(),
  search: z.string().optional(),
  status: z.string().optional(),
  phone: z.string().max(50).optional().describe('Leads whose phone, normalized to E.164 (Israel default), equals this one normalized'),
  email: z.string().max(320).optional().describe('Leads whose email equals this one, case-insensitively'),
});
export type ListLeadsQuery = z.infer<typeof listLeadsQuerySchema>;

export const leadStatusListSchema = z.array(statusItemSchema).meta({ id: 'LeadStatusList' });
