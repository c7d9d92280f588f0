import * as z from 'zod';
import { withLambdaContext } from '../../shared/lambda-handler';
import { getLogger } from '../../shared/logger';
import { fireReminder, reminderTargetSchema, sweepDueReminders } from '../../shared/reminders/fire-reminder';
import { finishUnfinishedDeletes } from '../../shared/resources/finish-deletes';
import { sweepOverdueDeliveries } from '../../shared/webhooks/delivery-sweeper';
import { finishUnfinishedRenames } from '../mortgage-files/borrower-names';
import { finishUnfinishedFileCreates } from '../mortgage-files/file-create-settle';
import { DELETE_FOLLOW_UPS } from './delete-follow-ups';

/**
 * The function EventBridge Scheduler invokes (design.md "scheduler-target"):
 * - `{kind: "reminder", organization_id, mortgage_file_id, reminder_id, remind_at}`: one reminder's
 *   one-time schedule came due; fire that arming (nothing when it was moved, cancelled or deleted).
 * - `{kind: "sweep"}`: the `rate(5 minutes)` schedule; the three sweeps below.
 * - `{kind: "sweep-reminders"}`: fire every reminder the due index holds as overdue (a schedule that
 *   was never created). Locally the reminder poller sends this every second.
 * - `{kind: "sweep-deliveries"}`: wake every pending webhook delivery whose wake-up is overdue (a
 *   crash between the delivery's write and its SQS message or retry schedule). Locally the event
 *   pipeline's scheduler sends this every ten seconds.
 * - `{kind: "sweep-deletes"}`: finish every record delete a stopped process left half-way (its
 *   partition's rows, its tasks, its links: `finishUnfinishedDeletes`), and every customer rename
 *   whose names some of its files still lack (`finishUnfinishedRenames`), and settle every new file
 *   whose borrowers' writes a stopped process left unfinished (`finishUnfinishedFileCreates`).
 *   Locally with the deliveries' sweep.
 */
export const schedulerEventSchema = z.discriminatedUnion('kind', [
  reminderTargetSchema.extend({ kind: z.literal('reminder') }),
  z.object({ kind: z.literal('sweep') }),
  z.object({ kind: z.literal('sweep-reminders') }),
  z.object({ kind: z.literal('sweep-deliveries') }),
  z.object({ kind: z.literal('sweep-deletes') }),
]);

/** `fired`: reminders fired; `woken`: overdue deliveries put back on the queue; `finished`: deletes and renames finished (the sweeps that look for them). */
export type SchedulerTargetResult = { kind: string; fired: number; woken?: number; finished?: number };

async function sweepReminders(): Promise<number> {
  let fired = 0;
  // Page through everything due (each pass takes at most 100 per shard).
  for (let pass = 0; pass < 20; pass++) {
    const result = await sweepDueReminders();
    fired += result.fired;
    if (!result.more || result.fired === 0) break;
  }
  if (fired > 0) getLogger().info('overdue reminders fired by the sweep', { fired });
  return fired;
}

async function sweepDeliveries(): Promise<number> {
  const woken = await sweepOverdueDeliveries();
  if (woken > 0) getLogger().info('overdue webhook deliveries woken by the sweep', { woken });
  return woken;
}

async function sweepDeletes(): Promise<number> {
  const [deletes, renames, creates] = await Promise.all([finishUnfinishedDeletes(DELETE_FOLLOW_UPS), finishUnfinishedRenames(), finishUnfinishedFileCreates()]);
  if (deletes > 0) getLogger().info('unfinished deletes finished by the sweep', { finished: deletes });
  if (renames > 0) getLogger().info('unfinished customer renames finished by the sweep', { finished: renames });
  if (creates > 0) getLogger().info('unsettled file creates settled by the sweep', { finished: creates });
  return deletes + renames + creates;
}

async function handle(event: unknown): Promise<SchedulerTargetResult> {
  const parsed = schedulerEventSchema.safeParse(event);
  if (!parsed.success) {
    // Retrying cannot fix a malformed input; drop it.
    getLogger().warn('malformed scheduler event dropped');
    return { kind: 'unknown', fired: 0 };
  }
  switch (parsed.data.kind) {
    case 'reminder': {
      const { kind: _kind, ...target } = parsed.data;
      const outcome = await fireReminder(target);
      getLogger().info('reminder schedule handled', { reminder_id: target.reminder_id, outcome });
      return { kind: 'reminder', fired: outcome === 'fired' ? 1 : 0 };
    }
    case 'sweep-reminders':
      return { kind: 'sweep-reminders', fired: await sweepReminders() };
    case 'sweep-deliveries':
      return { kind: 'sweep-deliveries', fired: 0, woken: await sweepDeliveries() };
    case 'sweep-deletes':
      return { kind: 'sweep-deletes', fired: 0, finished: await sweepDeletes() };
    case 'sweep': {
      // One sweep failing must not keep the others from running; the invocation still fails after all.
      const [reminders, deliveries, deletes] = await Promise.allSettled([sweepReminders(), sweepDeliveries(), sweepDeletes()]);
      for (const outcome of [reminders, deliveries, deletes]) if (outcome.status === 'rejected') throw outcome.reason;
      return { kind: 'sweep', fired: (reminders as PromiseFulfilledResult<number>).value, woken: (deliveries as PromiseFulfilledResult<number>).value, finished: (deletes as PromiseFulfilledResult<number>).value };
    }
  }
}

export const handler = withLambdaContext(handle);
