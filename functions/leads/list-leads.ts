import { normalizeEmail, normalizePhone } from '../../shared/contact-normalization';
import { parsePaging, sanitizeSearchTerm } from '../../shared/http/list-query';
import { keys } from '../../shared/storage/keys';
import {
  findLeadKeysByContact,
  getLeadCounters,
  getLeadsByKeys,
  leadSearchText,
  queryPage,
  searchLeadKeys,
  statusCounter,
  TOTAL_COUNTER,
} from './lead.repository';
import type { Lead } from './lead.schema';
import type { ListLeadsQuery } from './lead.schema';

export type LeadListQuery = ListLeadsQuery;

/**
 * `phone` and `email` lookups (integrations): the duplicate-matching indexes give the few leads
 * with that normalized phone or email; status, the other lookup and search narrow them.
 */
async function listLeadsByContact(
  organizationId: string,
  lookup: { phone?: string; email?: string },
  narrowing: { status?: string; term?: string },
): Promise<Lead[]> {
  const lookups: Array<{ phoneE164: string } | { emailLower: string }> = [];
  if (lookup.phone !== undefined) {
    const phoneE164 = normalizePhone(lookup.phone);
    if (!phoneE164) return []; // not a phone number: no lead can have it
    lookups.push({ phoneE164 });
  }
  if (lookup.email !== undefined) {
    const emailLower = normalizeEmail(lookup.email);
    if (!emailLower) return [];
    lookups.push({ emailLower });
  }
  const keyLists = await Promise.all(lookups.map((contact) => findLeadKeysByContact(organizationId, contact)));
  const [first, ...others] = keyLists;
  const matching = first.filter((key) => others.every((list) => list.some((other) => other.pk === key.pk)));
  const leads = await getLeadsByKeys(matching);
  return leads.filter(
    (lead) =>
      (narrowing.status === undefined || lead.status === narrowing.status) &&
      (narrowing.term === undefined || leadSearchText(lead).includes(narrowing.term)),
  );
}

/**
 * GET /leads: newest first. Without search, one index query and one counter read (in parallel);
 * with search, the search index is filtered and the page's leads are fetched by key.
 */
export async function listLeads(organizationId: string, query: LeadListQuery): Promise<{ data: Lead[]; count: number }> {
  const { limit, offset } = parsePaging(query);
  const term = sanitizeSearchTerm(query.search);
  const status = query.status && query.status.trim() !== '' ? query.status.trim() : undefined;

  const phone = query.phone?.trim() || undefined;
  const email = query.email?.trim() || undefined;
  if (phone !== undefined || email !== undefined) {
    const matches = await listLeadsByContact(organizationId, { phone, email }, { status, term });
    return { data: matches.slice(offset, offset + limit), count: matches.length };
  }

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
