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

/** A stable shard of an id, for indexes spread over `shards` partitions (due deliveries, due reminders). */
const shardOf = (id: string, shards: number): number => {
  let shard = 0;
  for (const character of id) shard = (shard * 31 + character.charCodeAt(0)) % shards;
  return shard;
};

export const keys = {
  /** The addresses the local runtime (`npm start`) serves on, recorded when it starts, for the admin command line. */
  localAddresses: (): ItemKey => ({ pk: 'LOCAL#RUNTIME', sk: 'ADDRESSES' }),
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
  /**
   * The newest lead with a normalized phone or email (intake's duplicate lookup by key): its own
   * partition, named like the duplicate index's partition for that contact.
   */
  leadContactMarker: (organizationId: string, kind: 'phone' | 'email', value: string): ItemKey => ({
    pk: kind === 'phone' ? keys.leadsByPhone(organizationId, value) : keys.leadsByEmail(organizationId, value),
    sk: 'NEWEST_LEAD',
  }),
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

  // ---- Lead intake (spec §4 lead intake endpoint, §5 lead intake protection) ----
  intakeEndpoint: (organizationId: string, intakeId: string): ItemKey => ({
    pk: `ORG#${organizationId}#INTAKE#${intakeId}`,
    sk: 'INTAKE',
  }),
  intakeEndpointIndexes: (organizationId: string, intakeId: string, createdAt: string) => ({
    gsi1pk: `INTAKEID#${intakeId}`,
    gsi1sk: 'INTAKE',
    gsi2pk: `ORG#${organizationId}#INTAKES`,
    gsi2sk: sortable(createdAt, intakeId),
  }),
  intakeById: (intakeId: string) => `INTAKEID#${intakeId}`,
  /** The endpoint's organization by its id alone, read by key (strongly consistent, unlike the gsi1 entry). */
  intakePointer: (intakeId: string): ItemKey => ({ pk: `INTAKEID#${intakeId}`, sk: 'POINTER' }),
  intakeEndpointsOfOrganization: (organizationId: string) => `ORG#${organizationId}#INTAKES`,
  /** Active endpoints of the organization (spec §8: at most 20). */
  intakeCounters: (organizationId: string): ItemKey => ({ pk: `ORG#${organizationId}`, sk: 'COUNTERS#INTAKE' }),
  /** Looked up by the SHA-256 hash of the token in the address; also holds the rate window. */
  intakeToken: (tokenHash: string): ItemKey => ({ pk: `INTAKETOKEN#${tokenHash}`, sk: 'INTAKETOKEN' }),
  /** Replay records: by SHA-256 of the raw body or of the idempotency key, per endpoint. */
  intakeReplay: (intakeId: string, kind: 'body' | 'key', digest: string): ItemKey => ({
    pk: `INTAKE#${intakeId}#REPLAY#${kind}#${digest}`,
    sk: 'REPLAY',
  }),
  /** Request log rows live in the endpoint's item collection, newest last by sort key. */
  intakeRequestLog: (organizationId: string, intakeId: string, at: string, entryId: string): ItemKey => ({
    pk: keys.intakeEndpoint(organizationId, intakeId).pk,
    sk: `LOG#${sortable(at, entryId)}`,
  }),
  intakeRequestLogPrefix: 'LOG#',
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
  'gsi6pk',
  'gsi6sk',
  'entity',
  'list_filters',
  'version',
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

// ---- Events and outbound webhooks (spec §3 webhook rows, §4 webhook management, §6 events) ----

/** Deliveries waiting for an attempt are spread over this many index partitions (see dueDeliveries). */
export const DUE_DELIVERY_SHARDS = 10;

export const webhookKeys = {
  /** An organization's endpoints share one partition: fanout and the list read them with one Query (at most 20). */
  endpoint: (organizationId: string, endpointId: string): ItemKey => ({
    pk: `ORG#${organizationId}#WEBHOOKS`,
    sk: `WEBHOOK#${endpointId}`,
  }),
  endpointsOfOrganization: (organizationId: string) => `ORG#${organizationId}#WEBHOOKS`,
  endpointSortKeyPrefix: 'WEBHOOK#',
  /** Number of endpoints of the organization (spec §8: at most 20), moved in the create/delete transaction. */
  endpointCounters: (organizationId: string): ItemKey => ({ pk: `ORG#${organizationId}`, sk: 'COUNTERS#WEBHOOK' }),

  delivery: (organizationId: string, deliveryId: string): ItemKey => ({
    pk: `ORG#${organizationId}#DELIVERY#${deliveryId}`,
    sk: 'DELIVERY',
  }),
  deliveriesOfEndpoint: (organizationId: string, endpointId: string) => `ORG#${organizationId}#WEBHOOK#${endpointId}#DELIVERIES`,
  waitingDeliveriesOfEndpoint: (organizationId: string, endpointId: string) =>
    `ORG#${organizationId}#WEBHOOK#${endpointId}#WAITING`,
  dueDeliveries: (shard: number) => `WEBHOOKS#WAITING#${shard}`,
  /**
   * gsi1: the endpoint's delivery log, newest first. While a delivery waits for an attempt it is
   * also in gsi2 (the endpoint's waiting deliveries, skipped when the endpoint is disabled) and in
   * gsi4 (all waiting deliveries by due time, sharded, re-enqueued when a local queue restarts).
   * Both are sparse: a final delivery drops out of them.
   */
  deliveryIndexes: (delivery: {
    id: string;
    organization_id: string;
    endpoint_id: string;
    created_at: string;
    next_attempt_at: string | null;
  }) => {
    const waiting = delivery.next_attempt_at !== null;
    const dueKey = waiting ? sortable(delivery.next_attempt_at!, delivery.id) : undefined;
    const shard = shardOf(delivery.id, DUE_DELIVERY_SHARDS);
    return {
      gsi1pk: webhookKeys.deliveriesOfEndpoint(delivery.organization_id, delivery.endpoint_id),
      gsi1sk: sortable(delivery.created_at, delivery.id),
      gsi2pk: waiting ? webhookKeys.waitingDeliveriesOfEndpoint(delivery.organization_id, delivery.endpoint_id) : undefined,
      gsi2sk: dueKey,
      gsi4pk: waiting ? webhookKeys.dueDeliveries(shard) : undefined,
      gsi4sk: dueKey,
    };
  },

  /** The local scheduler's due wake-ups, by due time (local runtime only; AWS uses EventBridge Scheduler). */
  scheduledWake: (dueAt: string, name: string): ItemKey => ({ pk: 'LOCAL#SCHEDULER', sk: `${dueAt}#${name}` }),
  scheduledWakes: 'LOCAL#SCHEDULER',
  /** Where the local stream poller stopped reading a shard, so a restart resumes there. */
  streamCheckpoint: (streamArn: string, shardId: string): ItemKey => ({ pk: 'LOCAL#STREAM', sk: `${streamArn}#${shardId}` }),
};

// ---- Resources declared on the shared machinery (shared/resources): customers, contacts, ... ----
/** Deletes whose follow-up may be unfinished are spread over this many gsi4 partitions (see `entityKeys.deleting`). */
export const DELETING_SHARDS = 4;

/**
 * A marker of work that follows a record's commit, in the record's own partition under `sk`, and
 * while it exists in gsi4 under `shard(0..3)` by the time of the write (`<time>#<id>`), where the
 * sweep (shared/resources/finish-deletes.ts `finishMarked`) finds the work a stopped process left.
 */
const followUpMarker = (sk: string, shard: (index: number) => string) => (type: string, organizationId: string, id: string, at: string) => ({
  pk: `ORG#${organizationId}#${type}#${id}`,
  sk,
  gsi4pk: shard(shardOf(id, DELETING_SHARDS)),
  gsi4sk: sortable(at, id),
});
const deletingShard = (shard: number) => `DELETING#${shard}`;
const renamingShard = (shard: number) => `RENAMING#${shard}`;
const settlingShard = (shard: number) => `SETTLING#${shard}`;

export const entityKeys = {
  /** One record: its own partition, so its children can join its item collection later. */
  record: (type: string, organizationId: string, id: string): ItemKey => ({ pk: `ORG#${organizationId}#${type}#${id}`, sk: type }),
  /**
   * A record's delete under way: a row of the record's own partition, put in the delete's
   * transaction and removed last, once everything that goes with the record is gone. While it
   * exists it is in gsi4 (sharded, by the time of the delete), where the sweep finds the deletes
   * whose follow-up a stopped process never finished.
   */
  deleting: followUpMarker('DELETING', deletingShard),
  /**
   * The `deleting` marker as written by a delete: its keys, the exact time of the delete and the
   * record as it was (a nested map: in no index). The stream tells the record's delete event by
   * the marker's insert, not by the record's removal, whose stream time is whole seconds only.
   */
  deletionMarker: (type: string, organizationId: string, id: string, at: string, record: Record<string, unknown>) => ({
    ...entityKeys.deleting(type, organizationId, id, at),
    organization_id: organizationId,
    deleted_at: at,
    deleted_record: record,
  }),
  deletingShard,
  /**
   * A customer rename whose names are still to be written on some of its files (more than one
   * transaction holds): a row of the customer's partition, put in the rename's transaction and
   * removed once every file has them. While it exists it is in gsi4 (sharded, by the time of the
   * rename), where the sweep finds a refresh a stopped or failed process never finished.
   */
  renaming: followUpMarker('NAMES_PENDING', renamingShard),
  renamingShard,
  /**
   * A new record whose create writes it first and its nested records after, in transactions of
   * their own (a mortgage file and its borrowers): a row of the record's partition, put in the
   * record's own transaction and removed by the write that settles it (the last nested write, or the
   * correction after a failed one). While it exists it is in gsi4 (sharded, by the time of the
   * create), where the sweep finds a create that a stopped process left unsettled.
   */
  settling: followUpMarker('CREATE_PENDING', settlingShard),
  settlingShard,
  /** A child of a record (a file's note, borrower, guard...): a row of the parent's partition, `<TYPE>#<id>`. */
  childRow: (parentType: string, organizationId: string, parentId: string, type: string, id: string): ItemKey => ({
    pk: entityKeys.record(parentType, organizationId, parentId).pk,
    sk: `${type}#${id}`,
  }),
  /** The type, organization and id of a record from its partition key (`record(...).pk`). */
  recordOfPartition: (pk: string): { type: string; organizationId: string; id: string } | undefined => {
    const match = /^ORG#([^#]+)#([^#]+)#([^#]+)$/.exec(pk);
    return match ? { organizationId: match[1], type: match[2], id: match[3] } : undefined;
  },
  /** gsi1 (newest first) and gsi6 (search and filters) partition of the organization's records of a type. */
  collection: (type: string, organizationId: string) => `ORG#${organizationId}#${type}S`,
  counters: (type: string, organizationId: string): ItemKey => ({ pk: `ORG#${organizationId}`, sk: `COUNTERS#${type}` }),
  /** A guard item that makes a field's value unique in the organization (a conditional put in the write's transaction). */
  unique: (type: string, field: string, organizationId: string, value: string): ItemKey => ({
    pk: `ORG#${organizationId}#${type}#${field}#${value}`,
    sk: 'UNIQUE',
  }),
  /** A row in a record's own partition (history, timeline, children), newest last by sort key. */
  row: (type: string, organizationId: string, id: string, kind: string, at: string, rowId: string): ItemKey => ({
    pk: entityKeys.record(type, organizationId, id).pk,
    sk: `${kind}#${sortable(at, rowId)}`,
  }),
  indexes: (type: string, organizationId: string, record: { id: string; created_at: string }) => {
    const sortKey = sortable(record.created_at, record.id);
    const collection = entityKeys.collection(type, organizationId);
    return { gsi1pk: collection, gsi1sk: sortKey, gsi6pk: collection, gsi6sk: sortKey };
  },
};

// ---- Records a lead's `source` may reference (spec §2 Lead: lead source, contact or customer) ----
export const referenceKeys = {
  leadSource: (organizationId: string, id: string): ItemKey => ({ pk: `ORG#${organizationId}#LEADSOURCE#${id}`, sk: 'LEADSOURCE' }),
  // Contacts and customers are declared entities: their keys are the entities' own.
  contact: (organizationId: string, id: string): ItemKey => entityKeys.record('CONTACT', organizationId, id),
  customer: (organizationId: string, id: string): ItemKey => entityKeys.record('CUSTOMER', organizationId, id),
};

// ---- What the app configures for mortgage files (resources.md §12): custom fields, payment sources, templates ----
/**
 * An organization's file settings share one partition, one item per setting under a sort key of
 * its kind and its name, so one Query reads a kind (or all of them) and a conditional put keeps
 * names unique.
 */
export const fileSettingKeys = {
  settingsOfOrganization: (organizationId: string) => `ORG#${organizationId}#FILESETTINGS`,
  customField: (organizationId: string, fieldName: string): ItemKey => ({
    pk: fileSettingKeys.settingsOfOrganization(organizationId),
    sk: `${fileSettingKeys.customFieldPrefix}${fieldName}`,
  }),
  paymentSource: (organizationId: string, key: string): ItemKey => ({
    pk: fileSettingKeys.settingsOfOrganization(organizationId),
    sk: `${fileSettingKeys.paymentSourcePrefix}${key}`,
  }),
  milestoneTemplate: (organizationId: string, key: string): ItemKey => ({
    pk: fileSettingKeys.settingsOfOrganization(organizationId),
    sk: `${fileSettingKeys.milestoneTemplatePrefix}${key}`,
  }),
  documentTemplate: (organizationId: string, key: string): ItemKey => ({
    pk: fileSettingKeys.settingsOfOrganization(organizationId),
    sk: `${fileSettingKeys.documentTemplatePrefix}${key}`,
  }),
  customFieldPrefix: 'CUSTOMFIELD#',
  paymentSourcePrefix: 'PAYMENTSOURCE#',
  milestoneTemplatePrefix: 'MILESTONE#',
  documentTemplatePrefix: 'DOCTEMPLATE#',
};

// ---- File reminders (resources.md §9.2): the due index the local poller and the AWS sweeper read ----
/** Scheduled reminders are spread over this many index partitions (see reminderKeys.dueIndexes). */
export const DUE_REMINDER_SHARDS = 10;

export const reminderKeys = {
  dueReminders: (shard: number) => `REMINDERS#DUE#${shard}`,
  shardOf: (id: string): number => shardOf(id, DUE_REMINDER_SHARDS),
  /**
   * gsi2 (projects every attribute), sparse: only a `scheduled` reminder is in it, under
   * `<remind_at in UTC, milliseconds>#<id>`, so "due by now" is one key range per shard. Sending,
   * cancelling or deleting the reminder rewrites the item without these attributes.
   */
  dueIndexes: (reminder: { id: string; status: unknown; remind_at: unknown }) => {
    if (reminder.status !== 'scheduled' || typeof reminder.remind_at !== 'string') return {};
    const due = new Date(reminder.remind_at);
    if (Number.isNaN(due.getTime())) return {};
    return { gsi2pk: reminderKeys.dueReminders(reminderKeys.shardOf(reminder.id)), gsi2sk: sortable(due.toISOString(), reminder.id) };
  },
  /** The upper bound of the due range at `now` (`#` sorts before `$`). */
  dueBound: (now: Date) => `${now.toISOString()}$`,
};
