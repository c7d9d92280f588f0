import { createPublicApiHandler } from '../../shared/http/public-api-handler';
import { fallbackOperations } from './routes';

/** Serves GET /openapi.json and answers every path no resource group owns with a JSON 404. */
export const handler = createPublicApiHandler(fallbackOperations);
