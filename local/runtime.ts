import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { configureService } from '../shared/config';
import { getDocumentClient } from '../shared/storage/dynamo-client';
import { keys } from '../shared/storage/keys';
import { COMMON_HEADERS, INTAKE_HEADERS } from '../shared/http/response';
import { groupForPath } from '../shared/http/route-table';
import { startDynamoDbLocal, type DynamoDbLocalProcess } from './dynamodb-local';
import { apiFunction } from './function-registry';
import { requestUrl, startHttpServer, toHttpApiEvent, type RunningServer } from './http-adapter';
import { localLambdaContext } from './lambda-context';
import { startEventPipeline, startReminderPoller } from './event-pipeline';
import { createLocalQueue, localSqsClient, startSqsServer } from './sqs-server';
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
  /** An existing SQS endpoint (the test suite's shared server); when absent fauxqs starts in this process. */
  sqsEndpoint?: string;
  /** Stream fanout, delivery worker and local scheduler; on unless false (a process that counts round trips wants them off). */
  events?: boolean;
  /** The local scheduler of file reminders (the poller that fires due reminders); default: as `events`. */
  reminders?: boolean;
}

export interface Runtime {
  baseUrl: string;
  intakeUrl: string;
  intakeDirectUrl: string;
  dynamoDbEndpoint: string;
  sqsEndpoint: string;
  deliveryQueueUrl: string;
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
      dynamoDb = await startDynamoDbLocal({ port: options.dynamoDbPort ?? 8000, dataDirectory: options.dataDirectory, lifetime: 'long' });
      stops.push(() => dynamoDb!.stop());
      endpoint = dynamoDb.endpoint;
    }
    // Webhooks: a delivery queue of this runtime's own, and the local scheduler.
    let sqsEndpoint = options.sqsEndpoint;
    if (!sqsEndpoint) {
      const sqsServer = await startSqsServer();
      stops.push(() => sqsServer.stop());
      sqsEndpoint = sqsServer.endpoint;
    }
    const sqsAdmin = localSqsClient(sqsEndpoint);
    const deliveryQueue = await createLocalQueue(sqsAdmin, 'webhook-deliveries', 60);
    stops.push(async () => {
      await deliveryQueue.delete();
      sqsAdmin.destroy();
    });
    const settings = {
      DYNAMODB_ENDPOINT: endpoint,
      TABLE_NAME: options.tableName,
      SQS_ENDPOINT: sqsEndpoint,
      DELIVERY_QUEUE_URL: deliveryQueue.url,
      SCHEDULER_MODE: 'local',
      // Data that outlives the process: each transaction is committed before it is answered (shared/storage/dynamo-client.ts).
      ...(options.dataDirectory ? { DYNAMODB_COMMIT_BARRIER: '1' } : {}),
    };
    configureService(settings);
    await ensureTable(endpoint, options.tableName);

    const api: RunningServer = await startHttpServer(options.port, async (request, body) => {
      const event = toHttpApiEvent(request, body);
      // {intake_url}/hooks/leads/{token}: its own API Gateway route, before the API route table.
      if (isIntakeRoute(event.rawPath)) return invokeIntake(toHttpApiEvent(request, body, intakeRouteOptions(event.rawPath)));
      const group = groupForPath(event.rawPath);
      const handler = await apiFunction(group);
      return handler(event, localLambdaContext(group));
    }, (request) => (isIntakeRoute(requestUrl(request).pathname) ? INTAKE_HEADERS : COMMON_HEADERS));
    stops.push(() => api.close());

    // {intake_direct_url}/{token}: the Function URL, with the socket's own address as the source IP.
    const intakeDirect: RunningServer = await startHttpServer(options.intakeDirectPort, async (request, body) =>
      invokeIntake(toHttpApiEvent(request, body)),
    () => INTAKE_HEADERS);
    stops.push(() => intakeDirect.close());
    // The admin command line run in this process prints intake addresses with the ports actually bound.
    configureService({ ...settings, PORT: api.port, INTAKE_DIRECT_PORT: intakeDirect.port });
    // For the admin command line in another process: the intake addresses it prints are these.
    await getDocumentClient().send(
      new PutCommand({
        TableName: options.tableName,
        Item: { ...keys.localAddresses(), entity: 'local_runtime', base_url: api.url, intake_url: api.url, intake_direct_url: intakeDirect.url },
      }),
    );

    if (options.events !== false) {
      const pipeline = await startEventPipeline({
        dynamoDbEndpoint: endpoint,
        tableName: options.tableName,
        sqsEndpoint,
        queueUrl: deliveryQueue.url,
        queueArn: deliveryQueue.arn,
      });
      stops.push(() => pipeline.stop());
    }
    if (options.reminders ?? options.events !== false) {
      const reminders = startReminderPoller();
      stops.push(() => reminders.stop());
    }

    return {
      baseUrl: api.url,
      intakeUrl: api.url,
      intakeDirectUrl: intakeDirect.url,
      dynamoDbEndpoint: endpoint,
      sqsEndpoint,
      deliveryQueueUrl: deliveryQueue.url,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

const INTAKE_ROUTE = /^\/hooks\/leads\/([^/]+)\/?$/;

function isIntakeRoute(rawPath: string): boolean {
  return INTAKE_ROUTE.test(rawPath);
}

function intakeRouteOptions(rawPath: string) {
  return { routeKey: 'ANY /hooks/leads/{token}', pathParameters: { token: INTAKE_ROUTE.exec(rawPath)![1] } };
}

async function invokeIntake(event: APIGatewayProxyEventV2) {
  const { handler } = await import('../functions/intake/handler');
  return handler(event, localLambdaContext('intake'));
}
