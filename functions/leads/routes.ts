import { recordNotFound } from '../../shared/http/errors';
import { defineOperation, partialUpdateOperations, type Operation } from '../../shared/http/operation';
import { created, deleted, list, ok } from '../../shared/http/response';
import { deleteResultSchema } from '../../shared/http/response-schemas';
import { getOrganization } from '../../shared/organizations/organization.repository';
import { activeStatuses } from '../../shared/organizations/system-statuses';
import { writeContextOf } from '../../shared/write-context';
import { createLead } from './create-lead';
import { deleteLead } from './delete-lead';
import { getLead } from './lead.repository';
import {
  changeLeadStatusSchema,
  createLeadSchema,
  leadListSchema,
  leadSchema,
  leadStatusListSchema,
  listLeadsQuerySchema,
  updateLeadSchema,
} from './lead.schema';
import { listLeads } from './list-leads';
import { updateLead } from './update-lead';



/** Path ids before the body (resources.md §1): a missing lead is a 404 even with an invalid body. */
async function requireLead({ params, organizationId }: { params: Record<string, string>; organizationId: string }) {
  const lead = await getLead(organizationId, params.id);
  if (!lead) throw recordNotFound('Lead');
  return lead;
}

const updateOperations = partialUpdateOperations(
  { put: 'replaceLead', patch: 'updateLead' },
  {
    path: '/leads/{id}',
    summary: 'Update a lead (PUT and PATCH are the same partial update)',
    versioned: true,
    body: updateLeadSchema,
    response: { status: 200, description: 'The updated lead', schema: leadSchema },
    errors: [400, 404],
    requirePath: requireLead,
    handle: async (input) => ok(await updateLead(writeContextOf(input), input.params.id, input.body)),
  },
);

export const leadOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path: '/leads',
    operationId: 'listLeads',
    summary: 'List leads, newest first; search over name, phone and email; filter by status',
    query: listLeadsQuerySchema,
    response: { status: 200, description: 'A page of leads and the total count of matches', schema: leadListSchema },
    handle: async ({ auth, query }) => {
      const page = await listLeads(auth.organizationId, query);
      return list(page.data, page.count);
    },
  }),
  defineOperation({
    method: 'POST',
    path: '/leads',
    operationId: 'createLead',
    versioned: true,
    summary: 'Create a lead',
    body: createLeadSchema,
    response: { status: 201, description: 'The created lead', schema: leadSchema },
    errors: [400],
    handle: async (input) => created(await createLead(writeContextOf(input), input.body)),
  }),
  defineOperation({
    method: 'GET',
    path: '/leads/statuses',
    operationId: 'listLeadStatuses',
    summary: "The organization's active lead statuses, in display order",
    response: { status: 200, description: 'Status items', schema: leadStatusListSchema },
    handle: async ({ auth }) => {
      const organization = await getOrganization(auth.organizationId);
      return ok(activeStatuses(organization?.lead_statuses ?? []));
    },
  }),
  defineOperation({
    method: 'GET',
    path: '/leads/{id}',
    operationId: 'getLead',
    versioned: true,
    summary: 'Get a lead',
    response: { status: 200, description: 'The lead', schema: leadSchema },
    errors: [400, 404],
    handle: async ({ auth, params }) => {
      const lead = await getLead(auth.organizationId, params.id);
      if (!lead) throw recordNotFound('Lead');
      return ok(lead);
    },
  }),
  ...updateOperations,
  defineOperation({
    method: 'DELETE',
    path: '/leads/{id}',
    operationId: 'deleteLead',
    versioned: true,
    summary: 'Delete a lead permanently',
    response: { status: 200, description: 'Deleted', schema: deleteResultSchema },
    errors: [400, 404],
    handle: async (input) => {
      await deleteLead(writeContextOf(input), input.params.id);
      return deleted('Lead deleted permanently');
    },
  }),
  defineOperation({
    method: 'PATCH',
    path: '/leads/{id}/status',
    operationId: 'changeLeadStatus',
    versioned: true,
    summary: "Change a lead's status; notes go to the status history only",
    body: changeLeadStatusSchema,
    response: { status: 200, description: 'The updated lead', schema: leadSchema },
    errors: [400, 404],
    requirePath: requireLead,
    handle: async (input) =>
      ok(await updateLead(writeContextOf(input), input.params.id, { status: input.body.status }, { statusNotes: input.body.notes ?? null })),
  }),
];
