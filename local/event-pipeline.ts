import { getLogger } from '../shared/logger';
import { rearmWaitingDeliveries } from '../shared/webhooks/delivery-sweeper';
import { fireDueWakes } from '../shared/webhooks/local-delivery-scheduler';
import { startQueuePoller, type Poller } from './queue-poller';
import { localLambdaContext } from './lambda-context';
import { localSqsClient } from './sqs-server';
import { startStreamPoller } from './stream-poller';
import { localDynamoClient } from './table';

export interface EventPipelineOptions {
  dynamoDbEndpoint: string;
  tableName: string;
  sqsEndpoint: string;
  queueUrl: string;
  queueArn: string;
}

/** How often the local scheduler looks for overdue deliveries (the AWS sweep runs every 5 minutes). */
const SWEEP_INTERVAL_MS = 10_000;

/**
 * The local scheduler: fires due wakes onto the delivery queue every second (it holds only waits
 * longer than SQS's 15 minutes), and every ten seconds sweeps deliveries whose wake-up is overdue
 * (the same handler and sweep the AWS rate schedule runs).
 */
function startSchedulerPoller(intervalMs = 1000): Poller {
  let lastSweep = Date.now();
  return startTimedPoller('local scheduler', intervalMs, async (stopping) => {
    while (!stopping() && (await fireDueWakes()) >= 100);
    if (!stopping() && Date.now() - lastSweep >= SWEEP_INTERVAL_MS) {
      lastSweep = Date.now();
      await schedulerTarget({ kind: 'sweep-deliveries' });
      await schedulerTarget({ kind: 'sweep-deletes' });
    }
  });
}

/**
 * The local EventBridge Scheduler for file reminders: every second the scheduler-target handler
 * gets the sweep event and fires every reminder the due index holds as due (resources.md §9.2:
 * locally within 5 seconds; a time in the past at once). The due state is the reminder item
 * itself, so a hard kill loses nothing: the next runtime's first sweep finds it.
 */
export function startReminderPoller(intervalMs = 1000): Poller {
  return startTimedPoller('local reminder', intervalMs, async (stopping) => {
    if (!stopping()) await schedulerTarget({ kind: 'sweep-reminders' });
  });
}

/** The handler and events the AWS schedules invoke, so local sweeps take the same path. */
async function schedulerTarget(event: { kind: 'sweep-deliveries' | 'sweep-reminders' | 'sweep-deletes' }): Promise<void> {
  const { handler } = await import('../functions/scheduler-target/handler');
  await handler(event, localLambdaContext('scheduler-target'));
}

/** Runs `work` again `intervalMs` after each run ends, until stopped; a failed run is logged (no data) and the next one comes. */
function startTimedPoller(name: string, intervalMs: number, work: (stopping: () => boolean) => Promise<void>): Poller {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        await work(() => stopping);
      } catch (error) {
        getLogger().warn(`${name} poll failed`, { errorName: (error as Error)?.name });
      }
      if (!stopping) timer = setTimeout(tick, intervalMs);
    })();
  };
  tick();
  return {
    stop: async () => {
      stopping = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/**
 * Events and webhooks on one machine: stream poller → fanout handler, queue poller → delivery
 * handler, the local scheduler, and first of all the re-arming of every waiting delivery (the
 * in-memory queue lost their messages with the last run, delayed retries included).
 */
export async function startEventPipeline(options: EventPipelineOptions): Promise<Poller> {
  const dynamoDb = localDynamoClient(options.dynamoDbEndpoint);
  const sqs = localSqsClient(options.sqsEndpoint);
  const pollers: Poller[] = [];
  try {
    // The queue is new: every waiting delivery is armed again with its remaining delay.
    await rearmWaitingDeliveries();

    const fanout = (await import('../functions/stream-fanout/handler')).handler;
    const delivery = (await import('../functions/webhook-delivery/handler')).handler;
    pollers.push(
      startStreamPoller({
        endpoint: options.dynamoDbEndpoint,
        tableName: options.tableName,
        dynamoDb,
        handler: (event) => fanout(event, localLambdaContext('stream-fanout')),
        onDiscard: (records) => getLogger().error('stream records discarded after retries', { count: records.length }),
      }),
    );
    pollers.push(startQueuePoller({ client: sqs, queueUrl: options.queueUrl, queueArn: options.queueArn, handler: (event) => delivery(event, localLambdaContext('webhook-delivery')) }));
    pollers.push(startSchedulerPoller());
  } catch (error) {
    await Promise.allSettled(pollers.map((poller) => poller.stop()));
    dynamoDb.destroy();
    sqs.destroy();
    throw error;
  }
  return {
    stop: async () => {
      await Promise.allSettled(pollers.map((poller) => poller.stop()));
      dynamoDb.destroy();
      sqs.destroy();
    },
  };
}
