import { configureService, getConfig } from '../../shared/config';
import { decideOutcome, MAX_ATTEMPTS } from '../../shared/webhooks/delivery-outcome';

/**
 * What is deployed: the CDK stack sets neither WEBHOOK_RETRY_SCHEDULE nor WEBHOOK_TIMEOUT_MS, so the
 * defaults are the spec's (§3 retry schedule, §6/§8 the 10-second receiver timeout). Every delivery
 * test runs with a short schedule of its own; this one holds the defaults.
 */
describe('webhook delivery defaults (no environment override)', () => {
  const saved = { schedule: process.env.WEBHOOK_RETRY_SCHEDULE, timeout: process.env.WEBHOOK_TIMEOUT_MS };
  beforeAll(() => {
    delete process.env.WEBHOOK_RETRY_SCHEDULE;
    delete process.env.WEBHOOK_TIMEOUT_MS;
    configureService();
  });
  afterAll(() => {
    if (saved.schedule !== undefined) process.env.WEBHOOK_RETRY_SCHEDULE = saved.schedule;
    if (saved.timeout !== undefined) process.env.WEBHOOK_TIMEOUT_MS = saved.timeout;
    configureService();
  });

  test('a retried failure waits 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h; the 8th failed attempt parks the delivery', () => {
    const { WEBHOOK_RETRY_SCHEDULE: schedule } = getConfig();
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, index) => decideOutcome({ kind: 'response', status: 503 }, index + 1, schedule, 10_000));
    expect(delays.map((outcome) => outcome.retryInSeconds)).toEqual([60, 300, 1800, 7200, 21600, 43200, 86400, null]);
    expect(delays.map((outcome) => outcome.status)).toEqual([...Array(7).fill('pending'), 'parked']);
  });

  test('the receiver has 10 seconds to answer', () => {
    expect(getConfig().WEBHOOK_TIMEOUT_MS).toBe(10_000);
  });
});
