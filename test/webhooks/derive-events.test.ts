import type { DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { endpointWantsEvent } from '../../shared/webhooks/endpoint-subscription';
import { toLambdaRecord } from '../../local/stream-poller';
import { revokedApiKey } from '../../shared/events/api-key-revocation';
import { deriveEvents, EVENT_RULES } from '../../shared/events/derive-events';
import { EVENT_CATALOG } from '../../shared/events/event-catalog';
import { LEAD_SNAPSHOT_FIELDS } from '../../shared/events/lead-event-rules';
import { MORTGAGE_FILE_ENTITY, MORTGAGE_FILE_SNAPSHOT_FIELDS } from '../../shared/events/mortgage-file-event-rules';
import { mortgageFileEntity } from '../../functions/mortgage-files/mortgage-file.entity';
import { streamChangeFromRecord, type Item, type StreamChange } from '../../shared/events/stream-change';
import type { WebhookEndpoint } from '../../shared/webhooks/webhook-endpoint.repository';
import { entityKeys } from '../../shared/storage/keys';

const ORG = '0190a5a0-0000-7000-8000-000000000001';
const LEAD = '0190a5a0-0000-7000-8000-0000000000aa';
const USER_A = '0190a5a0-0000-7000-8000-00000000000a';
const USER_B = '0190a5a0-0000-7000-8000-00000000000b';
const FILE = '0190a5a0-0000-7000-8000-0000000000f1';
const CUSTOMER = '0190a5a0-0000-7000-8000-0000000000c1';

/** A lead item as the repository stores it: domain fields plus keys and internal attributes. */
function leadItem(overrides: Item = {}): Item {
  return {
    pk: `ORG#${ORG}#LEAD#${LEAD}`,
    sk: 'LEAD',
    gsi1pk: `ORG#${ORG}#LEADS`,
    gsi1sk: `2025-01-01T10:00:00.000Z#${LEAD}`,
    entity: 'lead',
    id: LEAD,
    organization_id: ORG,
    lead_number: '7',
    first_name: 'Dana',
    last_name: 'Cohen',
    phone: '050-123-4567',
    email: 'dana@example.com',
    status: 'new',
    status_custom: null,
    source: 'website',
    assigned_to: null,
    converted_to_mortgage_file_id: null,
    notes: 'private note',
    tags: ['vip'],
    required_amount: 1_200_000,
    total_income: 30_000,
    custom_fields: { id_number: '123456789' },
    created_by: USER_A,
    created_at: '2025-01-01T10:00:00.000Z',
    updated_at: '2025-01-01T10:00:00.000Z',
    phone_e164: '+972501234567',
    email_lower: 'dana@example.com',
    search_text: 'dana cohen\u0001050-123-4567',
    status_is_converted: false,
    ...overrides,
  };
}

/** The insert of a delete's `deleting` marker, as the delete writes it (entityKeys.deletionMarker). */
function deletion(type: string, record: Item, at: string): StreamChange {
  return change('created', undefined, entityKeys.deletionMarker(type, record.organization_id as string, record.id as string, at, record));
}

let sequence = 0;
function change(kind: StreamChange['kind'], before?: Item, after?: Item): StreamChange {
  sequence += 1;
  return { recordId: `record-${sequence}`, kind, before, after, recordedAt: new Date('2025-01-01T12:00:00Z') };
}

const updated = (changes: Item) => change('updated', leadItem(), leadItem({ ...changes, updated_at: '2025-01-01T11:00:00.000Z' }));
const types = (events: ReturnType<typeof deriveEvents>) => events.map((event) => event.type);

describe('spec §6 lead events from old and new images', () => {
  test('spec §6: lead.created from an insert, with no changes and a snapshot of exactly the lead snapshot fields', () => {
    const [event, ...rest] = deriveEvents(change('created', undefined, leadItem()));
    expect(rest).toEqual([]);
    expect(event.type).toBe('lead.created');
    expect(event.organizationId).toBe(ORG);
    expect(event.body).toEqual({
      id: event.id,
      type: 'lead.created',
      created_at: '2025-01-01T10:00:00.000Z',
      data: {
        object: 'lead',
        id: LEAD,
        changes: {},
        lead: {
          id: LEAD,
          lead_number: '7',
          first_name: 'Dana',
          last_name: 'Cohen',
          phone: '050-123-4567',
          email: 'dana@example.com',
          status: 'new',
          status_custom: null,
          source: 'website',
          assigned_to: null,
          converted_to_mortgage_file_id: null,
          created_at: '2025-01-01T10:00:00.000Z',
        },
      },
    });
  });

  test('spec §6: snapshots never carry internal attributes, notes, amounts or custom fields (id numbers)', () => {
    const [event] = deriveEvents(change('created', undefined, leadItem()));
    expect(Object.keys(event.body.data.lead as object).sort()).toEqual([...LEAD_SNAPSHOT_FIELDS].sort());
    const text = JSON.stringify(event.body);
    for (const hidden of ['search_text', 'phone_e164', 'status_is_converted', 'gsi1pk', 'private note', '123456789', '1200000', 'organization_id']) {
      expect(text).not.toContain(hidden);
    }
  });

  test('spec §3, §6: lead.status_changed when the status changes, with {from, to}', () => {
    const events = deriveEvents(updated({ status: 'contacted' }));
    expect(types(events)).toEqual(['lead.status_changed']);
    expect(events[0].body.data.changes).toEqual({ status: { from: 'new', to: 'contacted' } });
    expect(events[0].body.created_at).toBe('2025-01-01T11:00:00.000Z');
    expect((events[0].body.data.lead as Item).status).toBe('contacted');
  });

  test('spec §6: lead.status_changed also between two custom statuses', () => {
    const events = deriveEvents(change('updated', leadItem({ status: 'vip_review' }), leadItem({ status: 'vip_signed' })));
    expect(types(events)).toEqual(['lead.status_changed']);
    expect(events[0].body.data.changes).toEqual({ status: { from: 'vip_review', to: 'vip_signed' } });
  });

  test('spec §6: lead.assigned when assigned, reassigned and unassigned', () => {
    const assigned = deriveEvents(change('updated', leadItem(), leadItem({ assigned_to: USER_A })));
    const reassigned = deriveEvents(change('updated', leadItem({ assigned_to: USER_A }), leadItem({ assigned_to: USER_B })));
    const unassigned = deriveEvents(change('updated', leadItem({ assigned_to: USER_B }), leadItem({ assigned_to: null })));
    expect([types(assigned), types(reassigned), types(unassigned)]).toEqual([['lead.assigned'], ['lead.assigned'], ['lead.assigned']]);
    expect(reassigned[0].body.data.changes).toEqual({ assigned_to: { from: USER_A, to: USER_B } });
    expect(unassigned[0].body.data.changes).toEqual({ assigned_to: { from: USER_B, to: null } });
  });

  test('spec §3, §6: lead.converted when the status becomes the organization\'s converted status (with lead.status_changed)', () => {
    const events = deriveEvents(updated({ status: 'converted', status_is_converted: true }));
    expect(types(events)).toEqual(['lead.status_changed', 'lead.converted']);
    // Moving between two converted statuses is no new conversion.
    const again = deriveEvents(
      change('updated', leadItem({ status: 'converted', status_is_converted: true }), leadItem({ status: 'won', status_is_converted: true })),
    );
    expect(types(again)).toEqual(['lead.status_changed']);
  });

  test('spec §4, resources.md §5: lead.converted carries the linked file in its snapshot and changes', () => {
    const events = deriveEvents(updated({ status: 'converted', status_is_converted: true, converted_to_mortgage_file_id: FILE }));
    expect(types(events)).toEqual(['lead.status_changed', 'lead.converted']);
    const converted = events[1].body.data;
    expect((converted.lead as Item).converted_to_mortgage_file_id).toBe(FILE);
    expect(converted.changes).toEqual({
      status: { from: 'new', to: 'converted' },
      converted_to_mortgage_file_id: { from: null, to: FILE },
    });
  });

  test('spec §6: lead.deleted from the delete\'s marker, with the last snapshot and no changes, at the delete\'s exact time; the removal itself and the marker\'s own removal give none', () => {
    const events = deriveEvents(deletion('LEAD', leadItem({ status: 'lost' }), '2025-01-01T12:00:00.321Z'));
    expect(types(events)).toEqual(['lead.deleted']);
    expect(events[0].body.data).toMatchObject({ object: 'lead', id: LEAD, changes: {} });
    expect((events[0].body.data.lead as Item).status).toBe('lost');
    expect(Object.keys(events[0].body.data.lead as Item).sort()).toEqual([...LEAD_SNAPSHOT_FIELDS].sort());
    expect([events[0].occurredAt, events[0].body.created_at, events[0].occurredAtIsExact]).toEqual(['2025-01-01T12:00:00.321Z', '2025-01-01T12:00:00.321Z', true]);
    expect(deriveEvents(change('deleted', leadItem({ status: 'lost' }), undefined))).toEqual([]);
    const marker = entityKeys.deletionMarker('LEAD', ORG, LEAD, '2025-01-01T12:00:00.321Z', leadItem());
    expect(deriveEvents(change('deleted', marker, undefined))).toEqual([]);
    // A marker without the record (written before markers carried it) tells nothing.
    expect(deriveEvents(change('created', undefined, entityKeys.deleting('LEAD', ORG, LEAD, '2025-01-01T12:00:00.321Z')))).toEqual([]);
  });

  test('spec §6: one change can give several events, each with its own id and the same changes', () => {
    const events = deriveEvents(updated({ status: 'contacted', assigned_to: USER_A, first_name: 'Dani' }));
    expect(types(events)).toEqual(['lead.status_changed', 'lead.assigned']);
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
    for (const event of events) {
      expect(event.body.data.changes).toEqual({
        status: { from: 'new', to: 'contacted' },
        assigned_to: { from: null, to: USER_A },
        first_name: { from: 'Dana', to: 'Dani' },
      });
    }
  });

  test('spec §6: an update of fields without an event (or of internal attributes only) gives none', () => {
    expect(deriveEvents(updated({ first_name: 'Dani', notes: 'changed' }))).toEqual([]);
    expect(deriveEvents(updated({ search_text: 'x', tags: ['a', 'b'] }))).toEqual([]);
    expect(deriveEvents(change('updated', leadItem(), leadItem()))).toEqual([]);
  });

  test('spec §6: event ids are deterministic per stream record and type (a retried record gives the same ids)', () => {
    const record = change('updated', leadItem(), leadItem({ status: 'contacted', assigned_to: USER_A }));
    const first = deriveEvents(record);
    const second = deriveEvents({ ...record });
    expect(second.map((event) => event.id)).toEqual(first.map((event) => event.id));
    for (const event of first) expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const other = deriveEvents({ ...record, recordId: 'another-record' });
    expect(other[0].id).not.toBe(first[0].id);
  });

  test('spec §6: rows that are not leads (timeline, status history, notifications, write log, counters, keys, webhooks) give no events', () => {
    const rows: Item[] = [
      { entity: 'lead_timeline', id: 'a', organization_id: ORG, lead_id: LEAD },
      { entity: 'lead_status_history', id: 'b', organization_id: ORG, from_status: 'new', to_status: 'contacted' },
      { entity: 'notification', id: 'c', organization_id: ORG },
      { entity: 'write_log', id: 'd', organization_id: ORG },
      { entity: 'lead_counters', total: 3 },
      { entity: 'api_key', key_id: 'e', organization_id: ORG, revoked: false },
      { entity: 'webhook_delivery', id: 'f', organization_id: ORG },
      { pk: 'x', sk: 'y' },
    ];
    for (const row of rows) {
      expect(deriveEvents(change('created', undefined, row))).toEqual([]);
      expect(deriveEvents(change('updated', row, { ...row, extra: 1 }))).toEqual([]);
      expect(deriveEvents(change('deleted', row, undefined))).toEqual([]);
    }
  });

  test('spec §6: the rule table covers only catalog events, and the catalog lists all 15 events with descriptions', () => {
    expect(EVENT_CATALOG).toHaveLength(15);
    const catalogTypes = EVENT_CATALOG.map((entry) => entry.type) as string[];
    for (const entity of EVENT_RULES) for (const rule of entity.rules) expect(catalogTypes).toContain(rule.type);
    for (const entry of EVENT_CATALOG) expect(entry.description.length).toBeGreaterThan(5);
  });
});

/** A mortgage file item as the shared repository stores it: domain fields plus keys and internal attributes. */
function fileItem(overrides: Item = {}): Item {
  return {
    pk: `ORG#${ORG}#MORTGAGE_FILE#${FILE}`,
    sk: 'MORTGAGE_FILE',
    gsi1pk: `ORG#${ORG}#MORTGAGE_FILES`,
    gsi1sk: `2025-01-01T10:00:00.000Z#${FILE}`,
    gsi6pk: `ORG#${ORG}#MORTGAGE_FILES`,
    gsi6sk: `2025-01-01T10:00:00.000Z#${FILE}`,
    entity: 'mortgage_file',
    id: FILE,
    organization_id: ORG,
    file_number: '1001',
    status: 'setup',
    status_changed_at: null,
    status_comment: null,
    assigned_to: null,
    customer_id: CUSTOMER,
    source_lead_id: LEAD,
    mortgage_type: 'purchase',
    mortgage_purpose: 'first_home',
    property_value: 2_500_000,
    requested_amount: 1_500_000,
    equity_amount: 1_000_000,
    property_city: 'Haifa',
    property_address: 'Herzl 10',
    bank_code: '12',
    expected_signing_date: '2025-03-01',
    notes: 'private remark',
    custom_fields: { id_number: '123456789' },
    created_by: USER_A,
    created_at: '2025-01-01T10:00:00.000Z',
    updated_at: '2025-01-01T10:00:00.000Z',
    search_text: '1001\u0001haifa',
    list_filters: { customer_id: CUSTOMER, status: 'setup', source_lead_id: LEAD },
    version: 1,
    ...overrides,
  };
}

const fileUpdated = (changes: Item) =>
  change('updated', fileItem(), fileItem({ ...changes, updated_at: '2025-01-01T11:00:00.000Z', version: 2 }));

describe('spec §6, resources.md §10 mortgage file events from old and new images', () => {
  test('the rules read the entity attribute the shared repository writes on a file item', () => {
    expect(MORTGAGE_FILE_ENTITY).toBe(mortgageFileEntity.type.toLowerCase());
    expect(EVENT_RULES.map((rules) => rules.entity)).toContain(MORTGAGE_FILE_ENTITY);
  });

  test('resources.md §5, §10: mortgage_file.created from an insert, with no changes and exactly the file snapshot fields', () => {
    const [event, ...rest] = deriveEvents(change('created', undefined, fileItem()));
    expect(rest).toEqual([]);
    expect(event.type).toBe('mortgage_file.created');
    expect(event.organizationId).toBe(ORG);
    expect(event.occurredAt).toBe('2025-01-01T10:00:00.000Z');
    expect(event.body).toEqual({
      id: event.id,
      type: 'mortgage_file.created',
      created_at: '2025-01-01T10:00:00.000Z',
      data: {
        object: 'mortgage_file',
        id: FILE,
        changes: {},
        mortgage_file: {
          id: FILE,
          file_number: '1001',
          status: 'setup',
          assigned_to: null,
          customer_id: CUSTOMER,
          source_lead_id: LEAD,
          mortgage_type: 'purchase',
          requested_amount: 1_500_000,
          created_at: '2025-01-01T10:00:00.000Z',
        },
      },
    });
  });

  test('resources.md §10: file snapshots never carry internal attributes, remarks, property details or custom-field values', () => {
    const [event] = deriveEvents(change('created', undefined, fileItem()));
    expect(Object.keys(event.body.data.mortgage_file as object).sort()).toEqual([...MORTGAGE_FILE_SNAPSHOT_FIELDS].sort());
    const text = JSON.stringify(event.body);
    for (const hidden of ['search_text', 'list_filters', 'gsi1pk', 'version', 'private remark', '123456789', 'Haifa', 'Herzl', '2500000', 'organization_id', 'created_by']) {
      expect(text).not.toContain(hidden);
    }
  });

  test('resources.md §10: absent snapshot fields are null, never missing', () => {
    const sparse = fileItem();
    for (const field of ['assigned_to', 'customer_id', 'source_lead_id', 'mortgage_type', 'requested_amount']) delete sparse[field];
    const [event] = deriveEvents(change('created', undefined, sparse));
    expect(event.body.data.mortgage_file).toMatchObject({ assigned_to: null, customer_id: null, source_lead_id: null, mortgage_type: null, requested_amount: null });
    expect(Object.keys(event.body.data.mortgage_file as object).sort()).toEqual([...MORTGAGE_FILE_SNAPSHOT_FIELDS].sort());
  });

  test('spec §3, §6: mortgage_file.status_changed when the status changes, with {from, to} of snapshot fields only', () => {
    const events = deriveEvents(
      fileUpdated({ status: 'in_review', status_changed_at: '2025-01-01T11:00:00.000Z', status_comment: 'docs in', list_filters: { status: 'in_review' } }),
    );
    expect(types(events)).toEqual(['mortgage_file.status_changed']);
    expect(events[0].body.data.changes).toEqual({ status: { from: 'setup', to: 'in_review' } });
    expect(events[0].body.created_at).toBe('2025-01-01T11:00:00.000Z');
    expect((events[0].body.data.mortgage_file as Item).status).toBe('in_review');
    expect(JSON.stringify(events[0].body)).not.toContain('docs in');
  });

  test('resources.md §5: mortgage_file.assigned when assigned, reassigned and unassigned', () => {
    const assigned = deriveEvents(change('updated', fileItem(), fileItem({ assigned_to: USER_A })));
    const reassigned = deriveEvents(change('updated', fileItem({ assigned_to: USER_A }), fileItem({ assigned_to: USER_B })));
    const unassigned = deriveEvents(change('updated', fileItem({ assigned_to: USER_B }), fileItem({ assigned_to: null })));
    expect([types(assigned), types(reassigned), types(unassigned)]).toEqual([['mortgage_file.assigned'], ['mortgage_file.assigned'], ['mortgage_file.assigned']]);
    expect(assigned[0].body.data.changes).toEqual({ assigned_to: { from: null, to: USER_A } });
    expect(reassigned[0].body.data.changes).toEqual({ assigned_to: { from: USER_A, to: USER_B } });
    expect(unassigned[0].body.data.changes).toEqual({ assigned_to: { from: USER_B, to: null } });
    expect((unassigned[0].body.data.mortgage_file as Item).assigned_to).toBeNull();
  });

  test('spec §6: one file update with a new status and a new assignee gives both events, each with its own id and the same changes', () => {
    const events = deriveEvents(fileUpdated({ status: 'approved', assigned_to: USER_A, requested_amount: 1_400_000, notes: 'x' }));
    expect(types(events)).toEqual(['mortgage_file.status_changed', 'mortgage_file.assigned']);
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
    for (const event of events) {
      expect(event.body.data).toMatchObject({ object: 'mortgage_file', id: FILE });
      expect(event.body.data.changes).toEqual({
        status: { from: 'setup', to: 'approved' },
        assigned_to: { from: null, to: USER_A },
        requested_amount: { from: 1_500_000, to: 1_400_000 },
      });
    }
  });

  test('resources.md §1: a file update that changes neither status nor assignee gives no event (other fields, version only, internal attributes)', () => {
    expect(deriveEvents(fileUpdated({ requested_amount: 900_000, mortgage_type: 'refinance', file_number: '2002', customer_id: null }))).toEqual([]);
    expect(deriveEvents(fileUpdated({ notes: 'changed', property_city: 'Eilat', custom_fields: { a: 1 } }))).toEqual([]);
    expect(deriveEvents(fileUpdated({}))).toEqual([]);
    expect(deriveEvents(change('updated', fileItem(), fileItem({ search_text: 'x', list_filters: {}, version: 7 })))).toEqual([]);
    expect(deriveEvents(change('updated', fileItem(), fileItem()))).toEqual([]);
  });

  test('resources.md §5: mortgage_file.deleted from the delete\'s marker, with the last snapshot and no changes, at the delete\'s exact time', () => {
    const events = deriveEvents(deletion(mortgageFileEntity.type, fileItem({ status: 'cancelled', assigned_to: USER_B }), '2025-01-01T12:00:00.654Z'));
    expect(types(events)).toEqual(['mortgage_file.deleted']);
    expect(events[0].body.data).toMatchObject({ object: 'mortgage_file', id: FILE, changes: {} });
    expect(events[0].body.data.mortgage_file).toMatchObject({ id: FILE, status: 'cancelled', assigned_to: USER_B });
    expect([events[0].occurredAt, events[0].occurredAtIsExact]).toEqual(['2025-01-01T12:00:00.654Z', true]);
    expect(deriveEvents(change('deleted', fileItem(), undefined))).toEqual([]);
  });

  test('every entity with a delete event writes the deleting marker that tells it: leads always, files because they keep rows', () => {
    const deletedChange: StreamChange = { recordId: 'r', kind: 'deleted', before: {}, recordedAt: new Date() };
    const withDeleteEvents = EVENT_RULES.filter((rules) => rules.rules.some((rule) => rule.when(deletedChange))).map((rules) => rules.entity);
    expect(withDeleteEvents.sort()).toEqual(['lead', MORTGAGE_FILE_ENTITY].sort());
    // deleteRecord puts the marker whenever something follows the delete; a file's rows always do.
    expect(mortgageFileEntity.keepsRows).toBe(true);
  });

  test('resources.md §5: rows in the file\'s partition and beside it (status history, children, counters, guards) give no events', () => {
    const rows: Item[] = [
      {
        pk: `ORG#${ORG}#MORTGAGE_FILE#${FILE}`,
        sk: `STATUS#2025-01-01T11:00:00.000Z#h1`,
        entity: 'mortgage_file_status_history',
        organization_id: ORG,
        id: 'h1',
        mortgage_file_id: FILE,
        from_status: 'setup',
        to_status: 'in_review',
        status: 'in_review',
        assigned_to: USER_A,
      },
      { pk: `ORG#${ORG}#MORTGAGE_FILE#${FILE}`, sk: 'NOTE#x', entity: 'mortgage_file_note', organization_id: ORG, id: 'n1', mortgage_file_id: FILE, status: 'open' },
      { pk: `ORG#${ORG}#MORTGAGE_FILE#${FILE}`, sk: 'BORROWER#x', entity: 'borrower', organization_id: ORG, id: 'b1', mortgage_file_id: FILE },
      { pk: `ORG#${ORG}#MORTGAGE_FILE#file_number#1001`, sk: 'UNIQUE', entity: 'unique_guard', organization_id: ORG, record_id: FILE },
      { pk: `ORG#${ORG}`, sk: 'COUNTERS#MORTGAGE_FILE', total: 4 },
    ];
    for (const row of rows) {
      expect(deriveEvents(change('created', undefined, row))).toEqual([]);
      expect(deriveEvents(change('updated', row, { ...row, status: 'approved', assigned_to: USER_B }))).toEqual([]);
      expect(deriveEvents(change('deleted', row, undefined))).toEqual([]);
    }
  });

  test('a file item without an organization or id gives no events', () => {
    const { organization_id: _organization, ...withoutOrganization } = fileItem();
    const { id: _id, ...withoutId } = fileItem();
    expect(deriveEvents(change('created', undefined, withoutOrganization))).toEqual([]);
    expect(deriveEvents(change('deleted', withoutId, undefined))).toEqual([]);
  });

  test('stream record as Lambda delivers it: a file MODIFY in AttributeValue form gives its events', () => {
    const parsed = streamChangeFromRecord({
      eventID: 'file-record',
      eventName: 'MODIFY',
      dynamodb: {
        ApproximateCreationDateTime: 1_735_732_800,
        OldImage: marshall(fileItem(), { removeUndefinedValues: true }) as never,
        NewImage: marshall(fileItem({ status: 'signed', assigned_to: USER_A }), { removeUndefinedValues: true }) as never,
        SequenceNumber: '2',
      },
    })!;
    const events = deriveEvents(parsed);
    expect(types(events)).toEqual(['mortgage_file.status_changed', 'mortgage_file.assigned']);
    expect((events[0].body.data.mortgage_file as Item).requested_amount).toBe(1_500_000);
  });
});

describe('spec §3 key revocation from the key item images', () => {
  const key = (revoked: boolean): Item => ({ entity: 'api_key', key_id: 'key-1', organization_id: ORG, revoked });

  test('spec §3: revoked turning true, or a key that was not revoked being deleted, names the key', () => {
    expect(revokedApiKey(change('updated', key(false), key(true)))).toEqual({ organizationId: ORG, keyId: 'key-1' });
    expect(revokedApiKey(change('deleted', key(false), undefined))).toEqual({ organizationId: ORG, keyId: 'key-1' });
  });

  test('spec §3: other key changes name nothing', () => {
    expect(revokedApiKey(change('updated', key(true), key(true)))).toBeUndefined();
    expect(revokedApiKey(change('updated', key(false), { ...key(false), rate_count: 5 }))).toBeUndefined();
    expect(revokedApiKey(change('deleted', key(true), undefined))).toBeUndefined();
    expect(revokedApiKey(change('created', undefined, key(false)))).toBeUndefined();
    expect(revokedApiKey(change('updated', leadItem(), leadItem({ revoked: true })))).toBeUndefined();
  });
});

describe('stream records as Lambda delivers them', () => {
  test('images in AttributeValue form are unmarshalled; the approximate time is read in seconds', () => {
    const record: DynamoDBRecord = {
      eventID: 'abc',
      eventName: 'MODIFY',
      dynamodb: {
        ApproximateCreationDateTime: 1_735_732_800,
        OldImage: marshall(leadItem(), { removeUndefinedValues: true }) as never,
        NewImage: marshall(leadItem({ status: 'contacted' }), { removeUndefinedValues: true }) as never,
        SequenceNumber: '1',
      },
    };
    const parsed = streamChangeFromRecord(record)!;
    expect(parsed.kind).toBe('updated');
    expect(parsed.recordId).toBe('abc');
    expect(parsed.recordedAt.toISOString()).toBe('2025-01-01T12:00:00.000Z');
    expect(parsed.after?.status).toBe('contacted');
    expect(parsed.after?.required_amount).toBe(1_200_000);
    expect(types(deriveEvents(parsed))).toEqual(['lead.status_changed']);
    expect(streamChangeFromRecord({ eventName: 'INSERT' })).toBeUndefined();
  });

  test('an attribute that cannot be read is left out instead of failing the record (it would hold up the shard)', () => {
    const image = { ...marshall(leadItem(), { removeUndefinedValues: true }), broken: {}, unknownType: { Q: 'x' } };
    const parsed = streamChangeFromRecord({ eventID: 'x', eventName: 'INSERT', dynamodb: { NewImage: image as never } })!;
    expect(parsed.after).not.toHaveProperty('broken');
    expect(parsed.after).not.toHaveProperty('unknownType');
    expect(parsed.after?.status).toBe('new');
    expect(types(deriveEvents(parsed))).toEqual(['lead.created']);
  });

  test('local adapter: DynamoDB Local\'s untyped empty maps come out as {"M": {}}, as Lambda delivers them', () => {
    const record = toLambdaRecord(
      {
        eventID: 'e',
        eventName: 'INSERT',
        dynamodb: {
          ApproximateCreationDateTime: new Date('2025-01-01T12:00:00Z'),
          NewImage: { mapping: {}, nested: { M: { inner: {} } }, list: { L: [{}] }, name: { S: 'x' } } as never,
          SequenceNumber: '1',
        },
      },
      'arn:stream',
    );
    expect(record.dynamodb?.NewImage).toEqual({ mapping: { M: {} }, nested: { M: { inner: { M: {} } } }, list: { L: [{ M: {} }] }, name: { S: 'x' } });
    expect(streamChangeFromRecord(record)?.after).toEqual({ mapping: {}, nested: { inner: {} }, list: [{}], name: 'x' });
    expect(record.dynamodb?.ApproximateCreationDateTime).toBeGreaterThanOrEqual(1_735_732_800);
    expect(record.dynamodb?.ApproximateCreationDateTime).toBeLessThan(1_735_732_860);
  });
});

describe('spec §3 which endpoints an event goes to', () => {
  const endpoint = (overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
    id: 'e1',
    organization_id: ORG,
    url: 'https://example.com/hook',
    events: ['lead.created', 'lead.deleted'],
    description: null,
    is_active: true,
    secret: 'whsec_x',
    activated_at: '2025-01-01T10:30:00.000Z',
    disabled_at: null,
    disabled_reason: null,
    created_by_key_id: 'k1',
    consecutive_failures: 0,
    created_at: '2025-01-01T09:00:00.000Z',
    updated_at: '2025-01-01T10:30:00.000Z',
    ...overrides,
  });
  const created = (at: string) => deriveEvents(change('created', undefined, leadItem({ created_at: at, updated_at: at })))[0];

  test('spec §3: only active endpoints subscribed to the type get it', () => {
    const event = created('2025-01-01T11:00:00.000Z');
    expect(endpointWantsEvent(endpoint(), event)).toBe(true);
    expect(endpointWantsEvent(endpoint({ is_active: false }), event)).toBe(false);
    expect(endpointWantsEvent(endpoint({ events: ['lead.deleted'] }), event)).toBe(false);
  });

  test('spec §3: only events after the endpoint became active (reactivation), to the millisecond when the item says when', () => {
    expect(endpointWantsEvent(endpoint(), created('2025-01-01T10:29:59.999Z'))).toBe(false);
    expect(endpointWantsEvent(endpoint(), created('2025-01-01T10:30:00.001Z'))).toBe(true);
  });

  test('spec §3: a deletion is judged to the millisecond too: one in the second of a reactivation but before it is not sent', () => {
    const deleted = (at: string) => deriveEvents(deletion('LEAD', leadItem(), at))[0];
    expect(endpointWantsEvent(endpoint({ activated_at: '2025-01-01T10:30:00.400Z' }), deleted('2025-01-01T10:30:00.399Z'))).toBe(false);
    expect(endpointWantsEvent(endpoint({ activated_at: '2025-01-01T10:30:00.400Z' }), deleted('2025-01-01T10:30:00.401Z'))).toBe(true);
  });

  test('spec §3: a time known only to the second (a delivery stored before deletions carried their time) counts as after in the second of activation', () => {
    const occurrence = (at: string) => ({ type: 'lead.deleted', occurredAt: at, occurredAtIsExact: false });
    expect(endpointWantsEvent(endpoint({ activated_at: '2025-01-01T10:30:00.400Z' }), occurrence('2025-01-01T10:30:00.000Z'))).toBe(true);
    expect(endpointWantsEvent(endpoint({ activated_at: '2025-01-01T10:30:00.400Z' }), occurrence('2025-01-01T10:29:59.000Z'))).toBe(false);
  });
});
