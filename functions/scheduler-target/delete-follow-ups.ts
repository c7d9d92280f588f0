import type { DeleteFollowUp } from '../../shared/resources/finish-deletes';
import { contactLinksOnDelete } from '../mortgage-files/contact-links';
import { afterFileDelete } from '../mortgage-files/file-delete-follow-up';
import { MORTGAGE_FILE_TYPE } from '../mortgage-files/file-rows';
import { TASK_TYPE, tasksUnlinkedOnDelete } from '../tasks/task.entity';

/**
 * What follows the delete of a record of each type, in full, for the sweep that finishes deletes a
 * stopped process left half-way (`finishUnfinishedDeletes`): the `rest` of the same delete work the
 * entities' deletes plan (shared/resources/delete-work.ts):
 * - a mortgage file: its tasks go (resources.md §8), and its links' rows in their contacts' partitions;
 * - a lead, a customer, a task: tasks naming it keep existing with `lead_id` / `customer_id` /
 *   `parent_task_id` null;
 * - a contact: its links to files go (resources.md §4).
 * A type not listed has nothing beyond the rows of its own partition (a customer's rows of its
 * files are such rows: the sweep removes them with the partition).
 */
export const DELETE_FOLLOW_UPS: Record<string, DeleteFollowUp> = {
  [MORTGAGE_FILE_TYPE]: afterFileDelete,
  CUSTOMER: tasksUnlinkedOnDelete('customer_id').rest,
  [TASK_TYPE]: tasksUnlinkedOnDelete('parent_task_id').rest,
  CONTACT: contactLinksOnDelete.rest,
  LEAD: tasksUnlinkedOnDelete('lead_id').rest,
};
