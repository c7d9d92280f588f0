import { useTestRuntime, type TestRuntime } from '../support/test-runtime';

/**
 * A file's milestones (resources.md §9.7) over real HTTP: own rows from the seeded templates,
 * carried-over templates and display conditions, progress (status, completion stamps, order,
 * removal, checklist), `include_removed`, and the charges' due-date rule (§9.10) on completion.
 */
const runtime = useTestRuntime({ events: false });

type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;
const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const SEEDED_KEYS = ['documents_collected', 'bank_submission', 'approval_in_principle', 'appraisal', 'final_approval', 'signing', 'disbursement'];

const today = () => new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jerusalem' }).format(new Date());
const plusDays = (day: string, days: number) => {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
};

async function call(tenant: Tenant, method: string, path: string, body?: unknown, expected = 200): Promise<any> {
  const response = await runtime.request(method, path, { key: tenant.apiKey, body });
  expect({ method, path, status: response.status, body: response.status === expected ? undefined : response.body }).toEqual({ method, path, status: expected, body: undefined });
  return response.body;
}
const newFile = (tenant: Tenant, body: Record<string, unknown> = {}) => call(tenant, 'POST', '/mortgage-files', body, 201);
const milestones = (fileId: string, query = '') => `/mortgage-files/${fileId}/milestones${query}`;
const progress = (fileId: string) => `/mortgage-files/${fileId}/milestones/progress`;

describe('milestones', () => {
  test('a new file lists the seeded templates as its own rows: order, due dates from the creation day, checklists, stable ids', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const list = await call(tenant, 'GET', milestones(file.id));
    expect(list.count).toBe(7);
    expect(list.data.map((row: any) => row.key)).toEqual(SEEDED_KEYS);
    const [first] = list.data;
    expect(first).toEqual({
      id: expect.any(String),
      mortgage_file_id: file.id,
      milestone_id: expect.any(String),
      key: 'documents_collected',
      label: 'Documents collected',
      order: 10,
      status: 'pending',
      due_date: plusDays(today(), 7),
      completed_at: null,
      completed_by: null,
      is_removed: false,
      is_carried_over: false,
      note: null,
      checklist: [
        { id: expect.any(String), label: 'ID cards', is_done: false, is_removed: false },
        { id: expect.any(String), label: 'Payslips', is_done: false, is_removed: false },
        { id: expect.any(String), label: 'Bank statements', is_done: false, is_removed: false },
      ],
    });
    expect(list.data.map((row: any) => row.due_date)).toEqual([7, 14, 21, 30, 45, 60, 75].map((days) => plusDays(today(), days)));
    const updated = await call(tenant, 'POST', progress(file.id), { milestone_id: first.milestone_id, status: 'in_progress' });
    expect(updated.id).toBe(first.id);
    expect(updated).toMatchObject({ status: 'in_progress', is_carried_over: false });
  });

  test('carried over: templates added later or matching the file’s current type; display conditions; deactivation', async () => {
    const tenant = await runtime.organization();
    const org = tenant.organizationId;
    await runtime.admin('milestone', 'create', '--org', org, '--key', 'purchase_only', '--label', 'Purchase contract', '--order', '15', '--mortgage-types', 'purchase');
    const purchase = await newFile(tenant, { mortgage_type: 'purchase' });
    const untyped = await newFile(tenant);
    expect((await call(tenant, 'GET', milestones(untyped.id))).data.map((row: any) => row.key)).toEqual(SEEDED_KEYS);
    const purchaseRows = (await call(tenant, 'GET', milestones(purchase.id))).data;
    expect(purchaseRows.map((row: any) => [row.key, row.is_carried_over])).toContainEqual(['purchase_only', false]);
    expect(purchaseRows[1].key).toBe('purchase_only');

    // A template added after the files were made: carried over on both (no condition).
    const late = await runtime.admin('milestone', 'create', '--org', org, '--key', 'late_step', '--label', 'Late step', '--due-offset-days', '2');
    const lateRow = (await call(tenant, 'GET', milestones(untyped.id))).data.find((row: any) => row.key === 'late_step');
    expect(lateRow).toMatchObject({ is_carried_over: true, order: 80, status: 'pending', due_date: plusDays(today(), 2) });
    // The untyped file becomes a purchase: the conditioned template is carried over.
    await call(tenant, 'PATCH', `/mortgage-files/${untyped.id}`, { mortgage_type: 'purchase' });
    expect((await call(tenant, 'GET', milestones(untyped.id))).data.find((row: any) => row.key === 'purchase_only')).toMatchObject({ is_carried_over: true });

    // Progress on the carried-over row keeps it (and its flag) after the template is deactivated.
    const recorded = await call(tenant, 'POST', progress(untyped.id), { milestone_id: late.milestone_id, note: 'Started' });
    expect(recorded).toMatchObject({ id: lateRow.id, is_carried_over: true, note: 'Started' });
    await runtime.admin('milestone', 'deactivate', '--org', org, '--key', 'late_step');
    await runtime.admin('milestone', 'deactivate', '--org', org, '--key', 'purchase_only');
    const afterUntyped = (await call(tenant, 'GET', milestones(untyped.id))).data.map((row: any) => row.key);
    expect(afterUntyped).toContain('late_step');
    expect(afterUntyped).not.toContain('purchase_only');
    const afterPurchase = (await call(tenant, 'GET', milestones(purchase.id))).data.map((row: any) => row.key);
    // An own row stays; a carried-over row without progress disappears with its template.
    expect(afterPurchase).toContain('purchase_only');
    expect(afterPurchase).not.toContain('late_step');
    // Own rows stay when the file's type changes.
    await call(tenant, 'PATCH', `/mortgage-files/${purchase.id}`, { mortgage_type: 'refinance' });
    expect((await call(tenant, 'GET', milestones(purchase.id))).data.map((row: any) => row.key)).toContain('purchase_only');
  });

  test('progress validation: template of the organization, checklist ids of the template, at least one field; nothing written on a 400', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const [documents, submission] = (await call(tenant, 'GET', milestones(file.id))).data;
    const other = await runtime.organization();
    const foreign = (await call(other, 'GET', milestones((await newFile(other)).id))).data[0];
    for (const body of [
      {},
      { status: 'completed' },
      { milestone_id: 'nope', status: 'completed' },
      { milestone_id: MISSING_ID, status: 'completed' },
      { milestone_id: foreign.milestone_id, status: 'completed' },
      { milestone_id: documents.milestone_id },
      { milestone_id: documents.milestone_id, status: 'done' },
      { milestone_id: documents.milestone_id, is_removed: 'true' },
      { milestone_id: documents.milestone_id, order: '5' },
      { milestone_id: documents.milestone_id, order: 1.5 },
      { milestone_id: documents.milestone_id, due_date: '2030-02-30' },
      { milestone_id: documents.milestone_id, checklist: [{ id: submission.milestone_id, is_done: true }] },
      { milestone_id: documents.milestone_id, checklist: [{ id: documents.checklist[0].id, is_done: 1 }] },
      { milestone_id: documents.milestone_id, note: 'x'.repeat(5001) },
    ]) {
      const response = await runtime.request('POST', progress(file.id), { key: tenant.apiKey, body });
      expect({ body, status: response.status }).toEqual({ body, status: 400 });
    }
    const none = await runtime.request('POST', progress(file.id), { key: tenant.apiKey, body: { milestone_id: documents.milestone_id, unknown: 1 } });
    expect(none.body.error).toBe('No updatable fields provided');
    expect((await call(tenant, 'GET', milestones(file.id))).data[0]).toEqual(documents);
    // Routes and isolation: another organization's file is 404, methods not served are 405 with Allow.
    expect((await runtime.request('GET', milestones(file.id), { key: other.apiKey })).status).toBe(404);
    expect((await runtime.request('POST', progress(file.id), { key: other.apiKey, body: { milestone_id: documents.milestone_id, status: 'completed' } })).status).toBe(404);
    const postList = await runtime.request('POST', milestones(file.id), { key: tenant.apiKey, body: {} });
    expect([postList.status, postList.headers.get('allow')]).toEqual([405, 'GET']);
    const getProgress = await runtime.request('GET', progress(file.id), { key: tenant.apiKey });
    expect([getProgress.status, getProgress.headers.get('allow')]).toEqual([405, 'POST']);
    const reader = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', tenant.userId, '--permissions', 'mortgage-files:read');
    expect((await runtime.request('GET', milestones(file.id), { key: reader.api_key })).status).toBe(200);
    expect((await runtime.request('POST', progress(file.id), { key: reader.api_key, body: { milestone_id: documents.milestone_id, status: 'completed' } })).status).toBe(403);
  });

  test('completion: stamps set and cleared, milestone_completed once, the same status changes nothing; order, note, removal, checklist', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const [documents, submission] = (await call(tenant, 'GET', milestones(file.id))).data;
    const done = await runtime.request('POST', progress(file.id), { key: tenant.apiKey, body: { milestone_id: submission.milestone_id, status: 'completed' } });
    expect(done.status).toBe(200);
    expect(done.headers.get('etag')).toMatch(/^"/);
    expect(done.body).toMatchObject({ status: 'completed', completed_by: tenant.userId, completed_at: expect.any(String) });
    const again = await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, status: 'completed' });
    expect(again.completed_at).toBe(done.body.completed_at);
    const rows = await call(tenant, 'GET', `/mortgage-files/${file.id}/timeline?event_type=milestone_completed`);
    expect(rows.data.map((row: any) => [row.metadata, row.actor_user_id])).toEqual([[{ milestone_id: submission.milestone_id }, tenant.userId]]);
    expect(await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, status: 'in_progress' })).toMatchObject({ status: 'in_progress', completed_at: null, completed_by: null });

    // Order moves the row (ties by key), a due date replaces the computed one, null restores it.
    await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, order: 5, due_date: '2031-03-01', note: 'Bank A first' });
    const reordered = (await call(tenant, 'GET', milestones(file.id))).data;
    expect(reordered.slice(0, 2).map((row: any) => [row.key, row.order, row.due_date, row.note])).toEqual([
      ['bank_submission', 5, '2031-03-01', 'Bank A first'],
      ['documents_collected', 10, plusDays(today(), 7), null],
    ]);
    expect(await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, order: null, due_date: null })).toMatchObject({ order: 20, due_date: plusDays(today(), 14) });
    // An empty note is no note (resources.md §1 Strings).
    expect(await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, note: '' })).toMatchObject({ note: null });
    expect((await call(tenant, 'GET', milestones(file.id))).data.find((row: any) => row.key === 'bank_submission').note).toBeNull();

    // Checklist progress; removed items and rows are listed only with include_removed=true.
    const [ids, payslips] = documents.checklist;
    await call(tenant, 'POST', progress(file.id), { milestone_id: documents.milestone_id, checklist: [{ id: ids.id, is_done: true }, { id: payslips.id, is_removed: true }] });
    const visible = (await call(tenant, 'GET', milestones(file.id))).data[0];
    expect(visible.checklist.map((item: any) => [item.label, item.is_done, item.is_removed])).toEqual([
      ['ID cards', true, false],
      ['Bank statements', false, false],
    ]);
    const withRemoved = (await call(tenant, 'GET', milestones(file.id, '?include_removed=true'))).data[0];
    expect(withRemoved.checklist.map((item: any) => [item.label, item.is_removed])).toEqual([
      ['ID cards', false],
      ['Payslips', true],
      ['Bank statements', false],
    ]);
    await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, is_removed: true });
    expect((await call(tenant, 'GET', milestones(file.id))).data.map((row: any) => row.key)).not.toContain('bank_submission');
    const all = await call(tenant, 'GET', milestones(file.id, '?include_removed=true'));
    expect(all.count).toBe(7);
    expect(all.data.find((row: any) => row.key === 'bank_submission').is_removed).toBe(true);
    expect((await runtime.request('GET', milestones(file.id, '?include_removed=yes'), { key: tenant.apiKey })).status).toBe(400);
  });

  test('completion sets the due date of linked charges (offset or 0), never a manual one; linking to a completed milestone applies it at once', async () => {
    const tenant = await runtime.organization();
    const file = await newFile(tenant);
    const [documents, submission] = (await call(tenant, 'GET', milestones(file.id))).data;
    const charges = `/mortgage-files/${file.id}/charges`;
    const link = { milestone_id: submission.milestone_id, milestone_status_key: 'completed' };
    const withOffset = await call(tenant, 'POST', charges, { description: 'Success fee', amount: 1000, ...link, milestone_due_offset_days: 10 }, 201);
    const noOffset = await call(tenant, 'POST', charges, { description: 'Handling fee', amount: 100, ...link }, 201);
    const manual = await call(tenant, 'POST', charges, { description: 'Manual fee', amount: 100, ...link, due_date: '2035-01-01' }, 201);
    const otherStatus = await call(tenant, 'POST', charges, { description: 'Other status', amount: 100, milestone_id: submission.milestone_id, milestone_status_key: 'skipped' }, 201);
    const otherMilestone = await call(tenant, 'POST', charges, { description: 'Other milestone', amount: 100, milestone_id: documents.milestone_id, milestone_status_key: 'completed' }, 201);

    await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, status: 'completed' });
    const read = async (id: string) => call(tenant, 'GET', `${charges}/${id}`);
    expect(await read(withOffset.id)).toMatchObject({ due_date: plusDays(today(), 10), due_date_source: 'milestone' });
    expect(await read(noOffset.id)).toMatchObject({ due_date: today(), due_date_source: 'milestone' });
    expect(await read(manual.id)).toMatchObject({ due_date: '2035-01-01', due_date_source: 'manual' });
    expect(await read(otherStatus.id)).toMatchObject({ due_date: null, due_date_source: null });
    expect(await read(otherMilestone.id)).toMatchObject({ due_date: null, due_date_source: null });

    // Created or linked while the milestone already has the status: the rule applies at once.
    const late = await call(tenant, 'POST', charges, { description: 'Late fee', amount: 50, ...link, milestone_due_offset_days: 3 }, 201);
    expect(late).toMatchObject({ due_date: plusDays(today(), 3), due_date_source: 'milestone' });
    const relinked = await call(tenant, 'PATCH', `${charges}/${otherMilestone.id}`, { milestone_id: submission.milestone_id });
    expect(relinked).toMatchObject({ due_date: today(), due_date_source: 'milestone' });
    // A manual date sent later wins and is never overwritten.
    await call(tenant, 'PATCH', `${charges}/${withOffset.id}`, { due_date: '2036-06-06' });
    await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, status: 'in_progress' });
    await call(tenant, 'POST', progress(file.id), { milestone_id: submission.milestone_id, status: 'completed' });
    expect(await read(withOffset.id)).toMatchObject({ due_date: '2036-06-06', due_date_source: 'manual' });
  });
});
