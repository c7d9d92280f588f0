import type { StoredRecord } from '../../shared/resources/entity';
import { internalsOf } from '../../shared/resources/entity.repository';
import { referrerRows } from '../../shared/resources/referrer-rows';
import type { TransactItem } from '../../shared/storage/transactions';

/**
 * A row of a customer's partition for each file that names the customer (as its `customer_id` or
 * through a borrower), written in the same transaction as the file or borrower that names them and
 * removed with that reference (shared/resources/referrer-rows.ts). The customer's delete guard
 * reads them instead of the organization's whole file index. A row says only that a file may name
 * the customer: the guard reads the file to know.
 *
 * An organization's rows are *complete* when an item says so (shared/storage/rows-complete.ts,
 * `customer_file_rows`): until then the guard asks the files' index as well.
 */
const rows = referrerRows('CUSTOMER', 'FILE', 'customer_file_link');

/** The row saying that this file names this customer (idempotent). */
export const customerFileLinkPut = (organizationId: string, customerId: string, fileId: string): TransactItem =>
  rows.put(organizationId, customerId, fileId, { customer_id: customerId, mortgage_file_id: fileId });

/** The removal of that row, once the file no longer names the customer. */
export const customerFileLinkDelete = (organizationId: string, customerId: string, fileId: string): TransactItem => rows.remove(organizationId, customerId, fileId);

/** The ids of the files that may name the customer: one consistent Query of the customer's partition. */
export async function linkedFileIds(organizationId: string, customerId: string): Promise<string[]> {
  return (await rows.read(organizationId, customerId)).map((row) => row.mortgage_file_id as string);
}

/** Removes every such row of a customer (after its delete, those its transaction had no room for). */
export const removeCustomerFileLinks = (organizationId: string, customerId: string) => rows.removeAll(organizationId, customerId);

/** The customers of a file's borrowers (kept on the file for its `customer_id` filter). */
export const borrowerCustomers = (file: StoredRecord): string[] => (internalsOf(file).borrower_customer_ids as string[] | null | undefined) ?? [];

/** The customers a file names: its `customer_id` and its borrowers' customers. */
export function customersNamed(file: StoredRecord): Set<string> {
  return new Set([file.customer_id, ...borrowerCustomers(file)].filter((id): id is string => typeof id === 'string'));
}
