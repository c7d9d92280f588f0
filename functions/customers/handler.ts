import { createApiHandler } from '../../shared/http/api-handler';
import { customerOperations } from './routes';

export const handler = createApiHandler(customerOperations);
