import * as z from 'zod';
import { EVENT_CATALOG, EVENT_TYPES, type EventType } from '../../shared/events/event-catalog';
import { MAX_WEBHOOK_URL_LENGTH } from '../../shared/webhooks/webhook-url-rules';

const dateTime = z.iso.datetime({ offset: true });
const eventType = z.enum(EVENT_TYPES as [EventType, ...EventType[]], { error: 'must be an event name of GET /webhooks/events' });

/** At most one of each event; the catalog (GET /webhooks/events) lists the names. */
const eventList = z
  .array(eventType, { error: 'must be an array of event names' })
  .min(1, 'must name at least one event')
  .max(EVENT_TYPES.length, `must name at most ${EVENT_TYPES.length} events`)
  .transform((events) => [...new Set(events)]);

const url = z.string({ error: 'must be a string' }).trim().min(1, 'must not be empty').max(MAX_WEBHOOK_URL_LENGTH, `must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
const description = z.string({ error: 'must be a string or null' }).max(500, 'must be at most 500 characters').nullable();

export const createWebhookSchema = z
  .object({ url, events: eventList, description: description.optional() })
  .meta({ id: 'CreateWebhookRequest' });
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

/** PUT and PATCH: the same partial update. */
export const updateWebhookSchema = z
  .object({ url: url.optional(), events: eventList.optional(), description: description.optional(), is_active: z.boolean({ error: 'must be true or false' }).optional() })
  .meta({ id: 'UpdateWebhookRequest' });
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

export const webhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(eventType),
    description: z.string().nullable(),
    is_active: z.boolean(),
    disabled_reason: z
      .enum(['manual', 'gone', 'consecutive_failures', 'api_key_revoked'])
      .nullable()
      .describe('Why the endpoint is not active: PATCH, a 410 answer, 30 consecutive failed attempts, or its API key was revoked'),
    disabled_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookWithSecretSchema = webhookSchema
  .extend({ secret: z.string().describe('Signing secret (prefix whsec_); shown only when created or rotated') })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const webhookListSchema = z.object({ data: z.array(webhookSchema), count: z.number().int() }).meta({ id: 'WebhookEndpointList' });

export const deliverySchema = z
  .object({
    id: z.uuid(),
    event_id: z.uuid().describe('The event id: the same on retries and redeliveries'),
    event_type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed', 'parked', 'skipped']),
    attempts: z.number().int(),
    last_http_status: z.number().int().nullable(),
    last_error: z.string().nullable(),
    payload: z.record(z.string(), z.unknown()).describe('The JSON body sent to the receiver'),
    next_attempt_at: dateTime.nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'WebhookDelivery' });

export const deliveryListSchema = z.object({ data: z.array(deliverySchema), count: z.number().int() }).meta({ id: 'WebhookDeliveryList' });

export const eventCatalogSchema = z
  .object({
    data: z.array(z.object({ type: z.string(), object: z.string(), description: z.string() })),
    count: z.number().int(),
  })
  .meta({ id: 'WebhookEventCatalog' });

export const eventCatalog = () => ({ data: EVENT_CATALOG.map((entry) => ({ ...entry })), count: EVENT_CATALOG.length });
