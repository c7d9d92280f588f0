import { enqueueWakes } from './delivery-queue';
import { wakeDeliveryAt } from './wake-delivery';
import { dueDeliveries, waitingDeliveries, wakeOf } from './webhook-delivery.repository';

/**
 * A waiting delivery is an item in DynamoDB first; its wake-up (an SQS message, a schedule) only
 * tells a worker when to look. A wake-up can be lost: the local queue lives in memory and goes with
 * a killed process, and in AWS a crash can fall between the delivery's write and its wake-up. Every
 * waiting delivery is in the sharded due-time index (gsi4), so both holes close here.
 */

/** When no wake-up came this long after a delivery was due, it is woken again. */
export const OVERDUE_GRACE_MS = 60_000;

/**
 * Wakes every waiting delivery overdue by more than `graceMs`. A second wake of a delivery that is
 * being attempted is harmless: the attempt holds a lease, and an attempt is claimed only once.
 */
export async function sweepOverdueDeliveries(graceMs = OVERDUE_GRACE_MS, now = Date.now()): Promise<number> {
  const overdue = await dueDeliveries(now - graceMs);
  if (overdue.length > 0) await enqueueWakes(overdue.map(wakeOf));
  return overdue.length;
}

/**
 * Re-arms every waiting delivery with its remaining delay (a new local queue has none of the old
 * one's delayed messages): the due ones at once, the others at their next attempt time.
 */
export async function rearmWaitingDeliveries(now = Date.now()): Promise<number> {
  const waiting = await waitingDeliveries();
  const due = waiting.filter((delivery) => Date.parse(delivery.next_attempt_at!) <= now);
  if (due.length > 0) await enqueueWakes(due.map(wakeOf));
  for (const delivery of waiting.filter((candidate) => !due.includes(candidate))) {
    await wakeDeliveryAt(wakeOf(delivery), new Date(delivery.next_attempt_at!), now);
  }
  return waiting.length;
}
