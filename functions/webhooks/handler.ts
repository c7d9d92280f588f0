import { createApiHandler } from '../../shared/http/api-handler';
import { webhookOperations } from './routes';

export const handler = createApiHandler(webhookOperations);
