import { createApiHandler } from '../../shared/http/api-handler';
import { contactOperations } from './routes';

export const handler = createApiHandler(contactOperations);
