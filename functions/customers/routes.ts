import { conflict } from '../../shared/http/errors';
import { defineOperation, type Operation } from '../../shared/http/operation';
import { list } from '../../shared/http/response';
import { pagingQuerySchema } from '../../shared/http/list-query';
import { crudOperations } from '../../shared/resources/crud-operations';
import { defineEntity } from '../../shared/resources/entity';
import { listRecords, requireRecord } from '../../shared/resources/entity.repository';
import { mortgageFileEntity } from '../mortgage-files/mortgage-file.entity';
import { customerEntity } from './customer.entity';
import { unlinkTasksOnDelete } from '../tasks/task.entity';

const tasksUnlinked = unlinkTasksOnDelete('customer_id');

/**
 * A customer is deleted only while no mortgage file names them, as its customer or as one of its
 * borrowers (a file keeps the ids of its borrowers' customers for its `customer_id` filter).
 */
const guardedCustomerEntity = defineEntity({
  ...customerEntity,
  async beforeDelete(record, _context, batch) {
    // Its tasks stay, with customer_id null (resources.md §3, §8), cleared in the delete's transaction.
    const [files] = await Promise.all([listRecords(mortgageFileEntity, record.organization_id, { customer_id: record.id, limit: '1' }), tasksUnlinked.plan(record, batch)]);
    if (files.count > 0) {
      throw conflict('Customer has mortgage files', { details: `The customer is on ${files.count} mortgage file(s); delete or change those first` });
    }
  },
  afterDelete: (record) => tasksUnlinked.after(record),
  afterDeleteNeeded: (record) => tasksUnlinked.pending(record),
});

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
