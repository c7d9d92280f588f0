/**
 * Every key and index value of the single table is built here and nowhere else.
 * Tenant items carry the organization id in their partition key, so a read with another
 * organization's id simply finds nothing.
 */
export type ItemKey = {
  pk: string;
  sk: string;
};

const sortable = (createdAt: string, id: string): string => `${createdAt}#${id}`;

export const keys = {
  organization: (organizationId: string): ItemKey => ({ pk: `ORG#${organizationId}`, sk: 'ORG' }),
  leadCounters: (organizationId: string): ItemKey => ({ pk: `ORG#${organizationId}`, sk: 'COUNTERS#LEAD' }),
  organizationCollection: () => ({ gsi1pk: 'ORGS' }),

  user: (userId: string): ItemKey => ({ pk: `USER#${userId}`, sk: 'USER' }),
  userInOrganization: (organizationId: string, userId: string) => ({
    gsi1pk: `ORG#${organizationId}#USERS`,
    gsi1sk: `USER#${userId}`,
  }),
  usersOfOrganization: (organizationId: string) => `ORG#${organizationId}#USERS`,

  apiKey: (keyHash: string): ItemKey => ({ pk: `APIKEY#${keyHash}`, sk: 'APIKEY' }),
  apiKeyIndexes: (organizationId: string, keyId: string) => ({
    gsi1pk: `APIKEYID#${keyId}`,
    gsi1sk: 'APIKEY',
    gsi2pk: `ORG#${organizationId}#APIKEYS`,
    gsi2sk: keyId,
  }),
  apiKeyById: (keyId: string) => `APIKEYID#${keyId}`,
  apiKeysOfOrganization: (organizationId: string) => `ORG#${organizationId}#APIKEYS`,

  lead: (organizationId: string, leadId: string): ItemKey => ({
    pk: `ORG#${organizationId}#LEAD#${leadId}`,
    sk: 'LEAD',
  }),
  leadCollection: (organizationId: string) => `ORG#${organizationId}#LEADS`,
  leadsWithStatus: (organizationId: string, status: string) => `ORG#${organizationId}#LEADS#STATUS#${status}`,
  leadsByPhone: (organizationId: string, phoneE164: string) => `ORG#${organizationId}#LEADPHONE#${phoneE164}`,
  leadsByEmail: (organizationId: string, emailLower: string) => `ORG#${organizationId}#LEADEMAIL#${emailLower}`,
  leadIndexes: (
    organizationId: string,
    lead: { id: string; created_at: string; status: string; phone_e164?: string | null; email_lower?: string | null },
  ) => {
    const sortKey = sortable(lead.created_at, lead.id);
    return {
      gsi1pk: keys.leadCollection(organizationId),
      gsi1sk: sortKey,
      gsi2pk: keys.leadsWithStatus(organizationId, lead.status),
      gsi2sk: sortKey,
      gsi3pk: keys.leadCollection(organizationId),
      gsi3sk: sortKey,
      gsi4pk: lead.phone_e164 ? keys.leadsByPhone(organizationId, lead.phone_e164) : undefined,
      gsi4sk: lead.phone_e164 ? sortKey : undefined,
      gsi5pk: lead.email_lower ? keys.leadsByEmail(organizationId, lead.email_lower) : undefined,
      gsi5sk: lead.email_lower ? sortKey : undefined,
    };
  },
  /** Rows kept in the lead's own item collection, removed with it. */
  leadStatusHistory: (organizationId: string, leadId: string, at: string, rowId: string): ItemKey => ({
    pk: keys.lead(organizationId, leadId).pk,
    sk: `STATUS#${sortable(at, rowId)}`,
  }),
  leadTimeline: (organizationId: string, leadId: string, at: string, rowId: string): ItemKey => ({
    pk: keys.lead(organizationId, leadId).pk,
    sk: `TIMELINE#${sortable(at, rowId)}`,
  }),

  notification: (userId: string, at: string, notificationId: string): ItemKey => ({
    pk: `USER#${userId}#NOTIFICATIONS`,
    sk: sortable(at, notificationId),
  }),
  notificationsOfUser: (userId: string) => `USER#${userId}#NOTIFICATIONS`,

  writeLog: (organizationId: string, at: string, entryId: string): ItemKey => ({
    pk: `ORG#${organizationId}#WRITELOG#${at.slice(0, 10)}`,
    sk: sortable(at, entryId),
  }),
};

/** Strips every storage attribute so that only domain fields leave a repository. */
export const STORAGE_ATTRIBUTES = new Set([
  'pk',
  'sk',
  'gsi1pk',
  'gsi1sk',
  'gsi2pk',
  'gsi2sk',
  'gsi3pk',
  'gsi3sk',
  'gsi4pk',
  'gsi4sk',
  'gsi5pk',
  'gsi5sk',
  'entity',
  'search_text',
  'expires_at',
]);

export function withoutStorageAttributes<T extends Record<string, unknown>>(item: T): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) {
    if (!STORAGE_ATTRIBUTES.has(name)) result[name] = value;
  }
  return result;
}

/** Seconds since the epoch, as DynamoDB TTL wants them. */
export function expiresInDays(days: number, from = Date.now()): number {
  return Math.floor(from / 1000) + days * 86400;
}
