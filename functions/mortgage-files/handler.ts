import { createApiHandler } from '../../shared/http/api-handler';
import { mortgageFileOperations } from './routes';

export const handler = createApiHandler(mortgageFileOperations);
