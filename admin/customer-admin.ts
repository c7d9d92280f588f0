import { customerFileLinkPut } from '../functions/customers/customer-file-links';
import { MORTGAGE_FILE_TYPE } from '../functions/mortgage-files/file-rows';
import { backfillRows } from './row-backfill';

/**
 * Writes the customers' rows of the files of an organization whose files predate them, then marks
 * its rows complete (a customer's delete guard then reads them alone instead of the organization's
 * file index). Each file gives a row to every customer it names: its `customer_id` and its
 * borrowers' customers.
 */
export async function backfillCustomerFileRows(organizationId: string) {
  const { records, rows_written } = await backfillRows('customer_file_rows', organizationId, {
    type: MORTGAGE_FILE_TYPE,
    fields: ['id', 'customer_id', 'borrower_customer_ids'],
    rowsOf: (file) => {
      const customers = new Set([file.customer_id, ...((file.borrower_customer_ids as unknown[] | undefined) ?? [])].filter((id): id is string => typeof id === 'string'));
      return [...customers].map((customerId) => customerFileLinkPut(organizationId, customerId, file.id as string).Put!.Item!);
    },
  });
  return { organization_id: organizationId, files: records, rows_written };
}
