import type { Operation } from '../../shared/http/operation';
import { crudOperations } from '../../shared/resources/crud-operations';
import { customerEntity } from './customer.entity';

/**
 * Customers (spec §4, resources.md §3). `GET /customers/{id}/mortgage-files` and the deletion
 * guard on files arrive with mortgage files.
 */
export const customerOperations: Operation[] = crudOperations(customerEntity);
