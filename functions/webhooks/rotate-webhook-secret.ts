import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { recordNotFound } from '../../shared/http/errors';
import { nowIso } from '../../shared/ids';
import { getDocumentClient, getTableName } from '../../shared/storage/dynamo-client';
import { webhookKeys } from '../../shared/storage/keys';
import { endpointFromItem, type WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import { generateWebhookSecret } from '../../shared/webhooks/webhook-signature';
import type { WebhookContext } from './webhook-context';

/**
 * POST /webhooks/{id}/rotate-secret: the old secret stops at once, because every attempt reads the
 * endpoint (consistently) right before signing.
 */
export async function rotateWebhookSecret(context: WebhookContext, endpointId: string): Promise<WebhookEndpoint> {
  try {
    const result = await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: webhookKeys.endpoint(context.organizationId, endpointId),
        UpdateExpression: 'SET secret = :secret, updated_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':secret': generateWebhookSecret(), ':now': nowIso() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return endpointFromItem(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw recordNotFound('Webhook endpoint');
    throw error;
  }
}
