import * as z from 'zod';
import { conflict, validationFailed as invalid } from '../../shared/http/errors';
import { nowIso } from '../../shared/ids';
import { findPaymentSource } from '../../shared/organizations/file-settings.repository';
import { childOperations, defineChild, getChild, type ChildScope, sentFields } from '../../shared/resources/child-collection';
import type { StoredRecord } from '../../shared/resources/entity';
import type { WriteBatch } from '../../shared/resources/write-batch';
import { calendarDate, FREE_TEXT_MAX, KEY_MAX, NAME_MAX, recordId, requiredText, text, todayInIsrael } from '../../shared/validation/fields';
import { chargeChild, currencySchema, planChargePayments } from './charge.child';
import { timelinePut } from './file-rows';
import { mortgageFileEntity } from './mortgage-file.entity';
import { positiveAmount, toAgorot } from './money';

/**
 * resources.md §9.11: a file's payments. Recording, changing the amount, moving (`charge_id` to
 * another charge), unlinking and deleting a payment rewrite the affected charges — their paid
 * amount adjusted in agorot and their status recalculated (§9.10) — in the payment's own
 * transaction, each conditional on the version read (a concurrent payment on the same charge
 * makes one of them read again and retry).
 */
export const PAYMENT_TYPE = 'PAYMENT';
export const PAYMENT_ENTITY = 'payment';
const dateTime = z.iso.datetime({ offset: true });
const REFERENCE_MAX = NAME_MAX;


export const paymentSchema = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    mortgage_file_id: z.uuid(),
    amount: z.number(),
    currency: z.literal('ILS'),
    paid_at: z.iso.date(),
    payment_source: z.string(),
    charge_id: z.uuid().nullable(),
    reference: z.string().nullable(),
    notes: z.string().nullable(),
    created_by: z.uuid().nullable(),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .meta({ id: 'Payment' });

const chargeId = () => recordId('charge');

const createPaymentSchema = z
  .object({
    amount: positiveAmount(),
    currency: currencySchema().optional(),
    paid_at: calendarDate().nullable().optional(),
    payment_source: requiredText(KEY_MAX),
    charge_id: chargeId().nullable().optional(),
    reference: text(REFERENCE_MAX).nullable().optional(),
    notes: text(FREE_TEXT_MAX).nullable().optional(),
  })
  .meta({ id: 'CreatePaymentRequest' });

const updatePaymentSchema = z
  .object({
    amount: positiveAmount().nullable().optional(),
    currency: currencySchema().optional(),
    paid_at: calendarDate().nullable().optional(),
    payment_source: requiredText(KEY_MAX).nullable().optional(),
    charge_id: chargeId().nullable().optional(),
    reference: text(REFERENCE_MAX).nullable().optional(),
    notes: text(FREE_TEXT_MAX).nullable().optional(),
  })
  .meta({ id: 'UpdatePaymentRequest' });

export const PAYMENT_FIELDS = ['amount', 'currency', 'paid_at', 'payment_source', 'charge_id', 'reference', 'notes', 'created_by'];
const SETTABLE = ['amount', 'paid_at', 'payment_source', 'charge_id', 'reference', 'notes'];

const emptyToNull = (value: unknown) => (value === '' || value === undefined ? null : value);

/** An active payment source of the organization (§12), else 400. */
async function requireActiveSource(organizationId: string, key: string): Promise<void> {
  const source = await findPaymentSource(organizationId, key);
  if (!source?.is_active) throw invalid('payment_source: not an active payment source of this organization');
}

/** This file's charge (400 otherwise), read consistently; linking to a cancelled one → 409. */
async function chargeToLink(scope: ChildScope, id: string): Promise<StoredRecord> {
  const charge = await getChild(chargeChild, scope.context.organizationId, scope.parent.id, id);
  if (!charge) throw invalid('charge_id: not a charge of this mortgage file');
  return charge;
}
function refuseCancelled(charge: StoredRecord): void {
  if (charge.status === 'cancelled') throw conflict('Charge is cancelled', { details: 'A payment cannot be linked to a cancelled charge' });
}

/** The charges a payment moves from (`from`) and to (`to`), with their amounts: one rewrite per charge. */
async function planChargeChanges(
  scope: ChildScope,
  batch: WriteBatch,
  from: { charge?: StoredRecord; agorot: number },
  to: { charge?: StoredRecord; agorot: number },
  at: string,
): Promise<void> {
  const deltas = new Map<string, { charge: StoredRecord; delta: number }>();
  if (from.charge) deltas.set(from.charge.id, { charge: from.charge, delta: -from.agorot });
  if (to.charge) {
    const entry = deltas.get(to.charge.id) ?? { charge: to.charge, delta: 0 };
    deltas.set(to.charge.id, { ...entry, delta: entry.delta + to.agorot });
  }
  for (const { charge, delta } of deltas.values()) if (delta !== 0) planChargePayments(charge, delta, scope, batch, at);
}

export const paymentChild = defineChild({
  type: PAYMENT_TYPE,
  label: 'Payment',
  entity: PAYMENT_ENTITY,
  parent: mortgageFileEntity,
  parentIdField: 'mortgage_file_id',
  segment: 'payments',
  itemParam: 'paymentId',
  names: { singular: 'payment', plural: 'payments' },
  schemas: {
    create: createPaymentSchema,
    update: updatePaymentSchema,
    record: paymentSchema,
    list: z.object({ data: z.array(paymentSchema), count: z.number().int() }).meta({ id: 'PaymentList' }),
  },
  fields: PAYMENT_FIELDS,
  filters: { charge_id: recordId('charge') },
  searchFields: ['reference', 'notes'],
  async build(input, scope, batch) {
    const [, charge] = await Promise.all([
      requireActiveSource(scope.context.organizationId, input.payment_source as string),
      input.charge_id ? chargeToLink(scope, input.charge_id as string) : Promise.resolve(undefined),
    ]);
    if (charge) refuseCancelled(charge);
    const values = {
      amount: input.amount,
      currency: 'ILS',
      paid_at: input.paid_at ?? todayInIsrael(),
      payment_source: input.payment_source,
      charge_id: input.charge_id ?? null,
      reference: emptyToNull(input.reference),
      notes: emptyToNull(input.notes),
      created_by: scope.context.userId,
    };
    await planChargeChanges(scope, batch, { agorot: 0 }, { charge, agorot: toAgorot(values.amount) }, nowIso());
    return values;
  },
  async change(current, input, scope, batch) {
    const sent = sentFields(input, SETTABLE, ['amount', 'payment_source']);
    const changes: Record<string, unknown> = { ...sent };
    for (const name of ['reference', 'notes']) if (name in sent) changes[name] = emptyToNull(sent[name]);
    // `paid_at` is not required: cleared, it takes its default again, as on create.
    if (sent.paid_at === null) changes.paid_at = todayInIsrael();

    // An inactive source stays valid on a payment that already carries it.
    const newSource = 'payment_source' in sent && sent.payment_source !== current.payment_source;
    const moved = 'charge_id' in sent && sent.charge_id !== current.charge_id;
    const newAmount = 'amount' in sent && toAgorot(sent.amount) !== toAgorot(current.amount);
    // The source, the charge moved to and the charge recalculated are read side by side.
    const [, target, oldCharge] = await Promise.all([
      newSource ? requireActiveSource(scope.context.organizationId, sent.payment_source as string) : Promise.resolve(),
      moved && sent.charge_id ? chargeToLink(scope, sent.charge_id as string) : Promise.resolve(undefined),
      (moved || newAmount) && current.charge_id
        ? getChild(chargeChild, scope.context.organizationId, scope.parent.id, current.charge_id as string)
        : Promise.resolve(undefined),
    ]);
    if (target) refuseCancelled(target);
    if (moved || newAmount) {
      const newCharge = moved ? target : oldCharge;
      const amount = (changes.amount ?? current.amount) as number;
      await planChargeChanges(scope, batch, { charge: oldCharge, agorot: toAgorot(current.amount) }, { charge: newCharge, agorot: toAgorot(amount) }, nowIso());
    }
    return changes;
  },
  afterCreate(record, { context }, batch) {
    batch.add(
      timelinePut(
        context.organizationId,
        record.mortgage_file_id as string,
        'payment_recorded',
        { payment_id: record.id, charge_id: (record.charge_id as string | null) ?? null, amount: record.amount as number },
        context.userId,
        record.created_at,
      ),
    );
  },
  async beforeDelete(record, scope, batch) {
    if (!record.charge_id) return;
    const charge = await getChild(chargeChild, scope.context.organizationId, scope.parent.id, record.charge_id as string);
    await planChargeChanges(scope, batch, { charge, agorot: toAgorot(record.amount) }, { agorot: 0 }, nowIso());
  },
});

export const paymentOperations = childOperations(paymentChild);
