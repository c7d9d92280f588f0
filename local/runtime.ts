import { resetConfigForTests } from '../shared/config';
import { groupForPath } from '../shared/http/route-table';
import { resetDocumentClient } from '../shared/storage/dynamo-client';
import { startDynamoDbLocal, type DynamoDbLocalProcess } from './dynamodb-local';
import { apiFunction } from './function-registry';
import { startHttpServer, toHttpApiEvent, type RunningServer } from './http-adapter';
import { localLambdaContext } from './lambda-context';
import { ensureTable } from './table';

export interface RuntimeOptions {
  port: number;
  intakeDirectPort: number;
  tableName: string;
  /** An existing DynamoDB endpoint; when absent DynamoDB Local is spawned on `dynamoDbPort`. */
  dynamoDbEndpoint?: string;
  dynamoDbPort?: number;
  /** Where DynamoDB Local keeps its files; absent means in memory. */
  dataDirectory?: string;
}

export interface Runtime {
  baseUrl: string;
  intakeUrl: string;
  intakeDirectUrl: string;
  dynamoDbEndpoint: string;
  stop(): Promise<void>;
}

/**
 * The whole service on one machine: DynamoDB Local, the table, and the HTTP adapters that turn
 * requests into API Gateway events for the real handlers.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const stops: Array<() => Promise<void>> = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    let dynamoDb: DynamoDbLocalProcess | undefined;
    let endpoint = options.dynamoDbEndpoint;
    if (!endpoint) {
      dynamoDb = await startDynamoDbLocal({ port: options.dynamoDbPort ?? 8000, dataDirectory: options.dataDirectory });
      stops.push(() => dynamoDb!.stop());
      endpoint = dynamoDb.endpoint;
    }
    process.env.DYNAMODB_ENDPOINT = endpoint;
    process.env.TABLE_NAME = options.tableName;
    process.env.AWS_REGION ??= 'us-east-1';
    resetConfigForTests();
    resetDocumentClient();
    await ensureTable(endpoint, options.tableName);

    const api: RunningServer = await startHttpServer(options.port, async (request, body) => {
      const event = toHttpApiEvent(request, body);
      const group = groupForPath(event.rawPath);
      const handler = await apiFunction(group);
      return handler(event, localLambdaContext(group));
    });
    stops.push(() => api.close());

    return {
      baseUrl: api.url,
      intakeUrl: api.url,
      intakeDirectUrl: `http://127.0.0.1:${options.intakeDirectPort}`,
      dynamoDbEndpoint: endpoint,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
