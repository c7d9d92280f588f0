import { createApiHandler } from '../../shared/http/api-handler';
import { leadOperations } from './routes';

export const handler = createApiHandler(leadOperations);
