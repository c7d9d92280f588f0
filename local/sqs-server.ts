import { CreateQueueCommand, DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';

export interface SqsServer {
  endpoint: string;
  stop(): Promise<void>;
}

// fauxqs ships ES modules only. A native dynamic import, out of reach of CommonJS transpilers,
// loads it from tsx (npm start) and from jest's global setup alike.
const importEsm = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<unknown>;

/** The SQS-compatible server `fauxqs`, in this process, on `port` (0: any free port). */
export async function startSqsServer(port = 0): Promise<SqsServer> {
  const { startFauxqs } = (await importEsm('fauxqs')) as {
    startFauxqs(options: { port?: number; host?: string; logger?: boolean }): Promise<{ port: number; stop(): Promise<void> }>;
  };
  const server = await startFauxqs({ port, host: '127.0.0.1', logger: false });
  return { endpoint: `http://127.0.0.1:${server.port}`, stop: () => server.stop() };
}

export function localSqsClient(endpoint: string, region = 'us-east-1'): SQSClient {
  // Receives wait at most a second (long polling stays well under the request timeout).
  return new SQSClient({ endpoint, region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, requestHandler: { connectionTimeout: 2_000, requestTimeout: 10_000 } });
}

export interface LocalQueue {
  url: string;
  arn: string;
  delete(): Promise<void>;
}

/** A queue of its own for one runtime (several runtimes may share one SQS server). */
export async function createLocalQueue(client: SQSClient, prefix: string, visibilityTimeoutSeconds: number): Promise<LocalQueue> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  const created = await client.send(
    new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: String(visibilityTimeoutSeconds) } }),
  );
  const url = created.QueueUrl!;
  return {
    url,
    arn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
    delete: async () => {
      await client.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
    },
  };
}
