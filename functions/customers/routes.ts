import { conflict } from '../../shared/http/errors';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { list } from '../../shared/http/response';
import { pagingQuerySchema } from '../../shared/http/list-query';
import { crudOperations } from '../../shared/resources/crud-operations';
import type { DeleteWork } from '../../shared/resources/delete-work';
import { defineEntity } from '../../shared/resources/entity';
import { getRecords, listRecords, requireRecord } from '../../shared/resources/entity.repository';
import { mortgageFileEntity } from '../mortgage-files/mortgage-file.entity';
import { customerEntity } from './customer.entity';
import { tasksUnlinkedOnDelete } from '../tasks/task.entity';
import { rowsComplete } from '../../shared/storage/rows-complete';
import { customerFileLinkDelete, customersNamed, linkedFileIds, removeCustomerFileLinks } from './customer-file-links';

/** Rows of files that once named the customer removed in the delete's transaction; beyond them, right after it. */
const LINK_DELETES_IN_TRANSACTION = 25;

/**
 * A customer is deleted only while no mortgage file names them, as its customer or as one of its
 * borrowers. The customer's own rows of its files (customer-file-links.ts) find them, read by key:
 * a file written a moment before the delete counts even while the index lags, and the read is the
 * customer's, not the organization's. A file that names the customer after these reads holds the
 * customer, so the delete's transaction fails on the customer's version and reads again. Rows of
 * files that no longer name the customer go with it.
 */
const fileRowsOnDelete: DeleteWork = {
  async plan(record, _context, batch) {
    const organizationId = record.organization_id;
    const [complete, linked] = await Promise.all([rowsComplete('customer_file_rows', organizationId), linkedFileIds(organizationId, record.id)]);
    // Files from before the rows (an organization not backfilled yet) are found through the index.
    const indexed = complete ? 0 : (await listRecords(mortgageFileEntity, organizationId, { customer_id: record.id, limit: '1' })).count;
    const naming = indexed > 0 ? indexed : (await getRecords(mortgageFileEntity, organizationId, linked)).filter((file) => customersNamed(file).has(record.id)).length;
    if (naming > 0) {
      throw conflict('Customer has mortgage files', { details: `The customer is on ${naming} mortgage file(s); delete or change those first` });
    }
    for (const fileId of linked.slice(0, LINK_DELETES_IN_TRANSACTION)) batch.add(customerFileLinkDelete(organizationId, record.id, fileId));
    return linked.length > LINK_DELETES_IN_TRANSACTION;
  },
  rest: removeCustomerFileLinks,
};

/** The customer as its delete sees it: refused while a file names it; its tasks stay, with customer_id null (resources.md §3, §8). */
const guardedCustomerEntity = defineEntity({ ...customerEntity, deleteWork: [tasksUnlinkedOnDelete('customer_id'), fileRowsOnDelete] });

/** Customers (spec §4, resources.md §3) and their mortgage files (resources.md §5 "Read", §11). */
export const customerOperations: Operation[] = [
  ...crudOperations(guardedCustomerEntity),
  defineOperation({
    method: 'GET',
    path: '/customers/{id}/mortgage-files',
    operationId: 'listCustomerMortgageFiles',
    summary: "The customer's mortgage files, as customer or as a borrower, newest first (needs customers:read and mortgage-files:read)",
    alsoRequires: [{ resource: 'mortgage-files', action: 'read' }],
    query: pagingQuerySchema(),
    response: { status: 200, description: 'A page of files (without nested arrays) and the total count', schema: mortgageFileEntity.schemas.list },
    handle: async ({ auth, params, query }) => {
      await requireRecord(customerEntity, auth.organizationId, params.id);
      const { limit, offset } = query as { limit?: string; offset?: string };
      const page = await listRecords(mortgageFileEntity, auth.organizationId, { limit, offset, customer_id: params.id });
      return list(page.data, page.count);
    },
  }),
];
