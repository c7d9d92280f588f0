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
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let lastSweep = Date.now();
  const tick = () => {
    running = (async () => {
      try {
        while (!stopping && (await fireDueWakes()) >= 100);
        if (!stopping && Date.now() - lastSweep >= SWEEP_INTERVAL_MS) {
          lastSweep = Date.now();
          // The same handler and sweep the AWS rate schedule invokes.
          const { handler } = await import('../functions/scheduler-target/handler');
          await handler({ kind: 'sweep-deliveries' }, localLambdaContext('scheduler-target'));
        }
      } catch (error) {
        getLogger().warn('local scheduler poll failed', { errorName: (error as Error)?.name });
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
 * The local EventBridge Scheduler for file reminders: every second the scheduler-target handler
 * gets the sweep event and fires every reminder the due index holds as due (resources.md §9.2:
 * locally within 5 seconds; a time in the past at once). The due state is the reminder item
 * itself, so a hard kill loses nothing: the next runtime's first sweep finds it.
 */
export function startReminderPoller(intervalMs = 1000): Poller {
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = (async () => {
      try {
        const { handler } = await import('../functions/scheduler-target/handler');
        if (!stopping) await handler({ kind: 'sweep-reminders' }, localLambdaContext('scheduler-target'));
      } catch (error) {
        getLogger().warn('local reminder poll failed', { errorName: (error as Error)?.name });
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
