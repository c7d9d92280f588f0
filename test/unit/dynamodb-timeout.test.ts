import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createServer, type Server, type Socket } from 'node:net';
import { configureService } from '../../shared/config';
import { getDocumentClient } from '../../shared/storage/dynamo-client';

/** A "DynamoDB" that accepts connections and never answers: a stalled connection. */
function silentServer(): Promise<{ server: Server; port: number; connections: () => number; close: () => Promise<void> }> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      resolve({
        server, port, connections: () => sockets.length,
        close: () => new Promise<void>((done) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => done());
        }),
      });
    });
  });
}

describe('DynamoDB request timeout', () => {
  afterEach(() => configureService());

  it('abandons a request that gets no answer and retries it, then fails instead of hanging', async () => {
    const silent = await silentServer();
    try {
      configureService({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${silent.port}`, DYNAMODB_TIMEOUT_MS: 300 });
      const failure = await getDocumentClient().send(new GetCommand({ TableName: 'any', Key: { pk: 'a', sk: 'b' } })).then(() => undefined, (error: Error) => error);
      // Each of the three attempts (maxAttempts) is abandoned on its own connection; a hang would
      // leave the first one open until this test's timeout.
      expect(failure?.name).toBe('TimeoutError');
      expect(silent.connections()).toBe(3);
    } finally {
      await silent.close();
    }
  });

  it('opening a connection may take 1 s against DynamoDB, and as long as a request against DynamoDB Local (slow to accept under a burst)', async () => {
    const connectionTimeout = async () => {
      const handler = getDocumentClient().config.requestHandler as unknown as { configProvider: Promise<{ connectionTimeout?: number; requestTimeout?: number }> };
      const { connectionTimeout: connect, requestTimeout: request } = await handler.configProvider;
      return { connect, request };
    };
    configureService({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', DYNAMODB_TIMEOUT_MS: 30_000 });
    expect(await connectionTimeout()).toEqual({ connect: 30_000, request: 30_000 });
    configureService({ DYNAMODB_ENDPOINT: undefined, DYNAMODB_TIMEOUT_MS: 2_000, AWS_REGION: 'eu-west-1' });
    expect(await connectionTimeout()).toEqual({ connect: 1_000, request: 2_000 });
  });

  it('is 2 s in Lambda and 30 s locally unless DYNAMODB_TIMEOUT_MS says otherwise', () => {
    const local = configureService({ DYNAMODB_TIMEOUT_MS: undefined });
    expect(local.DYNAMODB_TIMEOUT_MS).toBe(30_000);
    expect(() => configureService({ DYNAMODB_TIMEOUT_MS: 0 })).toThrow(/DYNAMODB_TIMEOUT_MS/);
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'api';
    try {
      expect(configureService({ TABLE_NAME: 'table', AWS_REGION: 'eu-west-1' }).DYNAMODB_TIMEOUT_MS).toBe(2_000);
      expect(configureService({ TABLE_NAME: 'table', AWS_REGION: 'eu-west-1', DYNAMODB_TIMEOUT_MS: 1500 }).DYNAMODB_TIMEOUT_MS).toBe(1_500);
    } finally {
      delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    }
  });
});
