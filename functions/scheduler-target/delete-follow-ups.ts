import type { DeleteFollowUp } from '../../shared/resources/finish-deletes';
import { deleteContactLinks } from '../mortgage-files/contact-links';
import { afterFileDelete } from '../mortgage-files/file-delete-follow-up';
import { MORTGAGE_FILE_TYPE } from '../mortgage-files/file-rows';
import { TASK_TYPE, unlinkAllTasks } from '../tasks/task.entity';

/**
 * What follows the delete of a record of each type, in full, for the sweep that finishes deletes a
 * stopped process left half-way (`finishUnfinishedDeletes`). The same functions are the entities'
 * own `afterDelete` (which skips what the delete's transaction already did):
 * - a mortgage file: its tasks go (resources.md §8), and its links' rows in their contacts' partitions;
 * - a lead, a customer, a task: tasks naming it keep existing with `lead_id` / `customer_id` /
 *   `parent_task_id` null;
 * - a contact: its links to files go (resources.md §4).
 * A type not listed has nothing beyond the rows of its own partition.
 */
export const DELETE_FOLLOW_UPS: Record<string, DeleteFollowUp> = {
  [MORTGAGE_FILE_TYPE]: afterFileDelete,
  CUSTOMER: (organizationId, id) => unlinkAllTasks('customer_id', organizationId, id),
  [TASK_TYPE]: (organizationId, id) => unlinkAllTasks('parent_task_id', organizationId, id),
  CONTACT: deleteContactLinks,
  LEAD: (organizationId, id) => unlinkAllTasks('lead_id', organizationId, id),
};
