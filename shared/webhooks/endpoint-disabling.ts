import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getLogger } from '../logger';
import { notificationPut, notificationsAlong } from '../organizations/notification.repository';
import { getOrganization } from '../organizations/organization.repository';
import { getDocumentClient } from '../storage/dynamo-client';
import { TransactionConditionFailed, transactWrite } from '../storage/transactions';
import { CONSECUTIVE_FAILURES_TO_DISABLE } from './delivery-outcome';
import { disableEndpointUpdate, type DisabledReason } from './webhook-endpoint.repository';
import { skipWaitingDelivery, waitingDeliveryKeys } from './webhook-delivery.repository';

/** Disables an active endpoint. Returns false when it was not active (or is gone). */
export async function disableEndpoint(organizationId: string, endpointId: string, reason: DisabledReason, at = new Date().toISOString()): Promise<boolean> {
  try {
    await getDocumentClient().send(new UpdateCommand(disableEndpointUpdate(organizationId, endpointId, reason, at).Update!));
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
  getLogger().info('webhook endpoint disabled', { organization_id: organizationId, endpoint_id: endpointId, reason });
  return true;
}

/**
 * Spec §3: after 30 consecutive failed attempts the endpoint is disabled, the organization's admins
 * are notified in the same transaction, and its waiting deliveries are skipped.
 */
export async function disableAfterConsecutiveFailures(organizationId: string, endpointId: string): Promise<boolean> {
  const at = new Date().toISOString();
  const organization = await getOrganization(organizationId);
  const notifications = notificationsAlong(
    (organization?.admin_user_ids ?? []).map((adminId) =>
      notificationPut(
        adminId,
        {
          organization_id: organizationId,
          type: 'webhook_endpoint_disabled',
          title: `A webhook endpoint was disabled after ${CONSECUTIVE_FAILURES_TO_DISABLE} consecutive failed deliveries`,
          record_type: 'webhook_endpoint',
          record_id: endpointId,
        },
        at,
      ),
    ),
    1,
  );
  try {
    await transactWrite([disableEndpointUpdate(organizationId, endpointId, 'consecutive_failures', at), ...notifications.inTransaction]);
  } catch (error) {
    // Already disabled by a concurrent attempt (or by its owner): that one did the rest.
    if (error instanceof TransactionConditionFailed) return false;
    throw error;
  }
  await notifications.rest();
  getLogger().info('webhook endpoint disabled', { organization_id: organizationId, endpoint_id: endpointId, reason: 'consecutive_failures' });
  await skipWaitingDeliveries(organizationId, endpointId, 'Skipped: the endpoint was disabled after consecutive failures');
  return true;
}

export async function skipWaitingDeliveries(organizationId: string, endpointId: string, reason: string): Promise<number> {
  const waiting = await waitingDeliveryKeys(organizationId, endpointId);
  const skipped = await Promise.all(waiting.map((key) => skipWaitingDelivery(key, reason)));
  return skipped.filter(Boolean).length;
}
