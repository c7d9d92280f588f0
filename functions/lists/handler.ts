import { createApiHandler } from '../../shared/http/api-handler';
import { listOperations } from './routes';

export const handler = createApiHandler(listOperations);
