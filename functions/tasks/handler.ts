import { createApiHandler } from '../../shared/http/api-handler';
import { taskOperations } from './routes';

export const handler = createApiHandler(taskOperations);
