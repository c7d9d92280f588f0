/**
 * Each jest worker uses its own DynamoDB Local engine (started by `global-setup.ts`): this sets the
 * worker's endpoint as TEST_DYNAMODB_ENDPOINT before each test file runs.
 */
const endpoints = (process.env.TEST_DYNAMODB_ENDPOINTS ?? '').split(',').filter((endpoint) => endpoint.length > 0);
if (endpoints.length > 0) {
  const worker = Number(process.env.JEST_WORKER_ID ?? '1');
  process.env.TEST_DYNAMODB_ENDPOINT = endpoints[(Math.max(worker, 1) - 1) % endpoints.length];
}
