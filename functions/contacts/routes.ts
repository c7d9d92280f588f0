import type { Operation } from '../../shared/http/operation';
import { crudOperations } from '../../shared/resources/crud-operations';
import { contactEntity } from './contact.entity';

/** Professional contacts (spec §4 Contacts, resources.md §4). */
export const contactOperations: Operation[] = crudOperations(contactEntity);
