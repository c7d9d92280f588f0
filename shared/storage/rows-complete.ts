import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { getDocumentClient, getTableName } from './dynamo-client';
import type { ItemKey } from './keys';
import type { TransactItem } from './transactions';

/**
 * Rows an organization keeps beside its records so that a read by key stands in for an index read
 * (which can lag, and costs a Query): each kind is *complete* once an item of the organization says
 * so. Until then a reader also asks the index. A new organization has no records, so it starts with
 * every kind complete; an older one gets a kind complete from that kind's backfill command.
 * - `lead_contact_markers`: the newest lead of each phone and email (lead-contact-markers.ts),
 *   backfilled by `mortgage-admin lead backfill-markers`;
 * - `customer_file_rows`: a customer's rows of the files naming it (customer-file-links.ts),
 *   backfilled by `mortgage-admin customer backfill-file-rows`;
 * - `task_link_rows`: the rows of the tasks naming a lead, customer, parent task or file, in that
 *   record's partition (task-link-rows.ts), backfilled by `mortgage-admin task backfill-link-rows`.
 */
const ROW_KINDS = {
  lead_contact_markers: 'LEAD_CONTACT_MARKERS',
  customer_file_rows: 'CUSTOMER_FILE_ROWS',
  task_link_rows: 'TASK_LINK_ROWS',
} as const;

export type RowKind = keyof typeof ROW_KINDS;

/** The item saying that an organization's rows of `kind` are complete. */
export const rowsCompleteKey = (kind: RowKind, organizationId: string): ItemKey => ({ pk: `ORG#${organizationId}`, sk: ROW_KINDS[kind] });

const rowsCompleteItem = (kind: RowKind, organizationId: string, at: string) => ({
  ...rowsCompleteKey(kind, organizationId),
  entity: kind,
  organization_id: organizationId,
  completed_at: at,
});

/** Every kind complete, in a new organization's transaction (it has no records yet). */
export const allRowsCompletePuts = (organizationId: string, at: string): TransactItem[] =>
  (Object.keys(ROW_KINDS) as RowKind[]).map((kind) => ({ Put: { TableName: getTableName(), Item: rowsCompleteItem(kind, organizationId, at) } }));

/** Marks an organization's rows of `kind` complete: the last step of that kind's backfill. */
export async function markRowsComplete(kind: RowKind, organizationId: string, at: string): Promise<void> {
  await getDocumentClient().send(new PutCommand({ TableName: getTableName(), Item: rowsCompleteItem(kind, organizationId, at) }));
}

/** Kinds known complete in this process: once complete, rows stay complete (every write keeps them), so it is never read again. */
const knownComplete = new Set<string>();

/**
 * Forgets what this process knows of an organization's rows of `kind`, so the next reader reads
 * the item again. Nothing in the service needs it (rows once complete stay complete); tests that
 * make an organization look older than its rows (deleting the item) do.
 */
export function forgetRowsComplete(kind: RowKind, organizationId: string): void {
  knownComplete.delete(`${kind}#${organizationId}`);
}

/** Whether an organization's rows of `kind` are complete (read consistently until it is). */
export async function rowsComplete(kind: RowKind, organizationId: string): Promise<boolean> {
  const name = `${kind}#${organizationId}`;
  if (knownComplete.has(name)) return true;
  const { Item } = await getDocumentClient().send(
    new GetCommand({ TableName: getTableName(), Key: rowsCompleteKey(kind, organizationId), ConsistentRead: true, ProjectionExpression: 'pk' }),
  );
  if (Item !== undefined) knownComplete.add(name);
  return Item !== undefined;
}

/**
 * The ids a record's rows of `kind` name (`fromRows`, read by key), and, while the organization's
 * rows are not complete, those the index finds as well (`index`, asked only then): `ids`, each once.
 * Rows and index are only hints: the caller reads the records to know.
 */
export async function idsFromRows(
  kind: RowKind,
  organizationId: string,
  fromRows: Promise<string[]>,
  index: () => Promise<string[]>,
): Promise<{ rows: string[]; ids: string[] }> {
  const [complete, rows] = await Promise.all([rowsComplete(kind, organizationId), fromRows]);
  return { rows, ids: complete ? rows : [...new Set([...rows, ...(await index())])] };
}
