import { parsePaging, sanitizeSearchTerm } from '../../shared/http/list-query';
import { keys } from '../../shared/storage/keys';
import { getLeadCounters, getLeadsByKeys, queryPage, searchLeadKeys, statusCounter, TOTAL_COUNTER } from './lead.repository';
import type { Lead } from './lead.schema';

export type LeadListQuery = {
  limit?: string;
  offset?: string;
  search?: string;
  status?: string;
};

/**
 * GET /leads: newest first. Without search, one index query and one counter read (in parallel);
 * with search, the search index is filtered and the page's leads are fetched by key.
 */
export async function listLeads(organizationId: string, query: LeadListQuery): Promise<{ data: Lead[]; count: number }> {
  const { limit, offset } = parsePaging(query);
  const term = sanitizeSearchTerm(query.search);
  const status = query.status && query.status.trim() !== '' ? query.status.trim() : undefined;

  if (term) {
    const matches = await searchLeadKeys(organizationId, term, status);
    const data = await getLeadsByKeys(matches.slice(offset, offset + limit));
    return { data, count: matches.length };
  }
  const [data, counters] = await Promise.all([
    status
      ? queryPage('gsi2', keys.leadsWithStatus(organizationId, status), offset, limit)
      : queryPage('gsi1', keys.leadCollection(organizationId), offset, limit),
    getLeadCounters(organizationId),
  ]);
  const count = Number(counters[status ? statusCounter(status) : TOTAL_COUNTER] ?? 0);
  return { data, count: Math.max(count, 0) };
}
