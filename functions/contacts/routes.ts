import type { Operation } from '../../shared/http/operation';
import { crudOperations } from '../../shared/resources/crud-operations';
import { defineEntity } from '../../shared/resources/entity';
import { contactLinksOnDelete } from '../mortgage-files/contact-links';
import { contactEntity } from './contact.entity';

/** The contact as its delete sees it: its file links (resources.md §4, §9.4) go with it. */
const contactWithLinks = defineEntity({ ...contactEntity, deleteWork: [contactLinksOnDelete] });

/** Professional contacts (spec §4 Contacts, resources.md §4). */
export const contactOperations: Operation[] = crudOperations(contactWithLinks);
