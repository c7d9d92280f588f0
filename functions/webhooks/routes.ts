import { recordNotFound } from '../../shared/http/errors';
import { pagingQuerySchema, parsePaging } from '../../shared/http/list-query';
import { defineOperation, partialUpdateOperations, type Operation } from '../../shared/http/operation';
import { created, deleted, list, ok } from '../../shared/http/response';
import { deleteResultSchema } from '../../shared/http/response-schemas';
import { listEndpointDeliveries } from '../../shared/webhooks/webhook-delivery.repository';
import { getEndpoint, listEndpoints } from '../../shared/webhooks/webhook-endpoint.repository';
import { createWebhook } from './create-webhook';
import { deleteWebhook } from './delete-webhook';
import { redeliverDelivery } from './redeliver-delivery';
import { rotateWebhookSecret } from './rotate-webhook-secret';
import { sendTestPing } from './send-test-ping';
import { updateWebhook } from './update-webhook';
import { webhookContext } from './webhook-context';
import { deliveryResponse, endpointResponse, endpointWithSecretResponse } from './webhook-response';
import {
  createWebhookSchema,
  deliveryListSchema,
  deliverySchema,
  eventCatalog,
  eventCatalogSchema,
  updateWebhookSchema,
  webhookListSchema,
  webhookSchema,
  webhookWithSecretSchema,
} from './webhook.schema';

/** The path's endpoint, or its 404 (before a body error: resources.md §1 "Order of checks"). */
async function requireEndpoint({ params, organizationId }: { params: Record<string, string>; organizationId: string }) {
  const endpoint = await getEndpoint(organizationId, params.id);
  if (!endpoint) throw recordNotFound('Webhook endpoint');
  return endpoint;
}

const updateOperations = partialUpdateOperations(
  { put: 'replaceWebhook', patch: 'updateWebhook' },
  {
    path: '/webhooks/{id}',
    summary: 'Update a webhook endpoint (is_active, url, events, description); PUT and PATCH are the same partial update',
    body: updateWebhookSchema,
    response: { status: 200, description: 'The updated endpoint (without its secret)', schema: webhookSchema },
    errors: [400, 404, 409],
    versioned: true,
    requirePath: requireEndpoint,
    handle: async (input) => ok(endpointResponse(await updateWebhook(webhookContext(input), input.params.id, input.body))),
  },
);

/** Webhook management (spec §4); every route needs an explicit webhooks:* or admin permission (spec §5). */
export const webhookOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/webhooks/events',
    operationId: 'listWebhookEvents',
    summary: 'The event catalog: every event an endpoint can subscribe to',
    response: { status: 200, description: 'Event types with descriptions', schema: eventCatalogSchema },
    handle: async () => ok(eventCatalog()),
  }),
  defineOperation({
    method: 'GET',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'List webhook endpoints, newest first (secrets are never shown)',
    query: pagingQuerySchema(),
    response: { status: 200, description: 'Endpoints and their total count', schema: webhookListSchema },
    handle: async ({ auth, query }) => {
      const endpoints = await listEndpoints(auth.organizationId);
      const { limit, offset } = parsePaging(query);
      return list(endpoints.slice(offset, offset + limit).map(endpointResponse), endpoints.length);
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Subscribe an HTTPS URL to events; the signing secret is returned only here (and by rotate-secret)',
    body: createWebhookSchema,
    response: { status: 201, description: 'The endpoint with its secret', schema: webhookWithSecretSchema },
    errors: [400],
    versioned: true,
    handle: async (input) => created(endpointWithSecretResponse(await createWebhook(webhookContext(input), input.body))),
  }),
  defineOperation({
    method: 'GET',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'Get a webhook endpoint (without its secret)',
    response: { status: 200, description: 'The endpoint', schema: webhookSchema },
    errors: [400, 404],
    versioned: true,
    handle: async ({ auth, params }) => ok(endpointResponse(await requireEndpoint({ params, organizationId: auth.organizationId }))),
  }),
  ...updateOperations,
  defineOperation({
    method: 'DELETE',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook endpoint (unsubscribe)',
    response: { status: 200, description: 'Deleted', schema: deleteResultSchema },
    errors: [400, 404],
    versioned: true,
    handle: async (input) => {
      await deleteWebhook(webhookContext(input), input.params.id);
      return deleted('Webhook endpoint deleted');
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/webhooks/{id}/test',
    operationId: 'testWebhook',
    summary: 'Send a ping event to the endpoint',
    response: { status: 201, description: 'The ping delivery, queued', schema: deliverySchema },
    errors: [400, 404],
    handle: async (input) => created(deliveryResponse(await sendTestPing(webhookContext(input), input.params.id))),
  }),
  defineOperation({
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    summary: 'Replace the signing secret; the old one stops working immediately',
    response: { status: 200, description: 'The endpoint with its new secret', schema: webhookWithSecretSchema },
    errors: [400, 404],
    versioned: true,
    handle: async (input) => ok(endpointWithSecretResponse(await rotateWebhookSecret(webhookContext(input), input.params.id))),
  }),
  defineOperation({
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "The endpoint's deliveries, newest first (kept 14 days when delivered, 30 days otherwise)",
    query: pagingQuerySchema(),
    response: { status: 200, description: 'A page of deliveries and their total count', schema: deliveryListSchema },
    errors: [400, 404],
    handle: async ({ auth, params, query }) => {
      const [endpoint, page] = await Promise.all([
        getEndpoint(auth.organizationId, params.id),
        listEndpointDeliveries(auth.organizationId, params.id, parsePaging(query)),
      ]);
      if (!endpoint) throw recordNotFound('Webhook endpoint');
      return list(page.data.map(deliveryResponse), page.count);
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver',
    operationId: 'redeliverWebhookDelivery',
    summary: 'Send a delivery again, with the same event id, as a new delivery',
    response: { status: 201, description: 'The new delivery, queued', schema: deliverySchema },
    errors: [400, 404],
    handle: async (input) =>
      created(deliveryResponse(await redeliverDelivery(webhookContext(input), input.params.id, input.params.deliveryId))),
  }),
];
