import * as z from 'zod';
import { withLambdaContext } from '../../shared/lambda-handler';
import { getLogger } from '../../shared/logger';
import { fireReminder, reminderTargetSchema, sweepDueReminders } from '../../shared/reminders/fire-reminder';

/**
 * The function EventBridge Scheduler invokes (design.md "scheduler-target"):
 * - `{kind: "reminder", organization_id, mortgage_file_id, reminder_id, remind_at}`: one reminder's
 *   one-time schedule came due; fire that arming (nothing when it was moved, cancelled or deleted).
 * - `{kind: "sweep-reminders"}`: the `rate(5 minutes)` schedule; fire every reminder the due index
 *   holds as overdue (a schedule that was never created). Locally the poller sends this every second.
 */
export const schedulerEventSchema = z.discriminatedUnion('kind', [
  reminderTargetSchema.extend({ kind: z.literal('reminder') }),
  z.object({ kind: z.literal('sweep-reminders') }),
]);

export type SchedulerTargetResult = { kind: string; fired: number };

async function handle(event: unknown): Promise<SchedulerTargetResult> {
  const parsed = schedulerEventSchema.safeParse(event);
  if (!parsed.success) {
    // Retrying cannot fix a malformed input; drop it.
    getLogger().warn('malformed scheduler event dropped');
    return { kind: 'unknown', fired: 0 };
  }
  if (parsed.data.kind === 'reminder') {
    const { kind: _kind, ...target } = parsed.data;
    const outcome = await fireReminder(target);
    getLogger().info('reminder schedule handled', { reminder_id: target.reminder_id, outcome });
    return { kind: 'reminder', fired: outcome === 'fired' ? 1 : 0 };
  }
  let fired = 0;
  // Page through everything due (each pass takes at most 100 per shard).
  for (let pass = 0; pass < 20; pass++) {
    const result = await sweepDueReminders();
    fired += result.fired;
    if (!result.more || result.fired === 0) break;
  }
  if (fired > 0) getLogger().info('overdue reminders fired by the sweep', { fired });
  return { kind: 'sweep-reminders', fired };
}

export const handler = withLambdaContext(handle);
