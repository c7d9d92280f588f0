import { randomUUID } from 'node:crypto';
import { runCli } from '../../admin/cli';
import { ensureTable } from '../../local/table';
import { configureService } from '../../shared/config';
import {
  findCustomField,
  findDocumentTemplate,
  findMilestoneTemplate,
  findMilestoneTemplateById,
  findPaymentSource,
  getFileSettings,
  listCustomFields,
  listDocumentTemplates,
  listMilestoneTemplates,
  listPaymentSources,
} from '../../shared/organizations/file-settings.repository';

/** `runCli` in this process against a table of its own in the suite's DynamoDB Local. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT!;
  const tableName = `file-settings-${randomUUID()}`;
  await ensureTable(endpoint, tableName);
  configureService({ DYNAMODB_ENDPOINT: endpoint, TABLE_NAME: tableName });
});

async function admin(...args: string[]): Promise<any> {
  const result = await runCli(args);
  if (result.exitCode !== 0) throw new Error(`mortgage-admin ${args.join(' ')} failed: ${result.stderr}`);
  expect(result.stderr).toBeUndefined();
  expect(result.stdout!.split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout!);
}

async function failure(...args: string[]): Promise<string> {
  const result = await runCli(args);
  expect({ args, exitCode: result.exitCode, stdout: result.stdout }).toEqual({ args, exitCode: 2, stdout: undefined });
  const parsed = JSON.parse(result.stderr!);
  expect(Object.keys(parsed)).toEqual(['error']);
  return parsed.error;
}

async function newOrganization(): Promise<string> {
  return (await admin('org', 'create', '--name', `Settings ${randomUUID().slice(0, 8)}`)).organization_id;
}

describe('contract + resources.md §12: org create seeds the default payment sources, milestone and required-document templates', () => {
  let org: string;
  beforeAll(async () => {
    org = await newOrganization();
  });

  test('the five payment sources of §12, in order, active, with Hebrew labels', async () => {
    expect(await listPaymentSources(org)).toEqual([
      { key: 'bank_transfer', label: 'Bank transfer', label_he: 'העברה בנקאית', is_active: true },
      { key: 'credit_card', label: 'Credit card', label_he: 'כרטיס אשראי', is_active: true },
      { key: 'check', label: 'Check', label_he: "צ'ק", is_active: true },
      { key: 'cash', label: 'Cash', label_he: 'מזומן', is_active: true },
      { key: 'bit', label: 'Bit', label_he: 'ביט', is_active: true },
    ]);
  });

  test('the seven milestone templates of §12: order, key, due_offset_days, checklists, no display condition', async () => {
    const templates = await listMilestoneTemplates(org);
    expect(templates.map(({ order, key, label, label_he, due_offset_days }) => ({ order, key, label, label_he, due_offset_days }))).toEqual([
      { order: 10, key: 'documents_collected', label: 'Documents collected', label_he: 'איסוף מסמכים', due_offset_days: 7 },
      { order: 20, key: 'bank_submission', label: 'Submitted to banks', label_he: 'הגשה לבנקים', due_offset_days: 14 },
      { order: 30, key: 'approval_in_principle', label: 'Approval in principle', label_he: 'אישור עקרוני', due_offset_days: 21 },
      { order: 40, key: 'appraisal', label: 'Appraisal', label_he: 'שמאות', due_offset_days: 30 },
      { order: 50, key: 'final_approval', label: 'Final approval', label_he: 'אישור סופי', due_offset_days: 45 },
      { order: 60, key: 'signing', label: 'Loan documents signed', label_he: 'חתימה על מסמכי ההלוואה', due_offset_days: 60 },
      { order: 70, key: 'disbursement', label: 'Disbursement', label_he: 'ביצוע ההלוואה', due_offset_days: 75 },
    ]);
    const checklists = Object.fromEntries(templates.map((template) => [template.key, template.checklist.map(({ label, label_he }) => ({ label, label_he }))]));
    expect(checklists).toEqual({
      documents_collected: [
        { label: 'ID cards', label_he: 'צילומי תעודות זהות' },
        { label: 'Payslips', label_he: 'תלושי שכר' },
        { label: 'Bank statements', label_he: 'דפי עו"ש' },
      ],
      bank_submission: [],
      approval_in_principle: [],
      appraisal: [],
      final_approval: [],
      signing: [
        { label: 'Borrowers signed', label_he: 'חתימת לווים' },
        { label: 'Life insurance', label_he: 'ביטוח חיים' },
        { label: 'Property insurance', label_he: 'ביטוח מבנה' },
      ],
      disbursement: [],
    });
    for (const template of templates) {
      expect(template.milestone_id).toMatch(UUID);
      expect(template.applies_to_mortgage_types).toEqual([]);
      expect(template.is_active).toBe(true);
      for (const item of template.checklist) expect(item.id).toMatch(UUID);
    }
    const ids = templates.flatMap((template) => [template.milestone_id, ...template.checklist.map((item) => item.id)]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(await findMilestoneTemplateById(org, templates[5].milestone_id)).toEqual(templates[5]);
  });

  test('the six required-document templates of §12 with their per_borrower flags', async () => {
    expect(await listDocumentTemplates(org)).toEqual([
      { key: 'id_card', label: 'ID card with appendix', label_he: 'תעודת זהות כולל ספח', per_borrower: true, is_active: true },
      { key: 'payslips_3_months', label: 'Last 3 payslips', label_he: '3 תלושי שכר אחרונים', per_borrower: true, is_active: true },
      { key: 'bank_statements_3_months', label: 'Bank statements, 3 months', label_he: 'דפי עו"ש ל-3 חודשים', per_borrower: true, is_active: true },
      { key: 'property_contract', label: 'Purchase contract', label_he: 'חוזה רכישה', per_borrower: false, is_active: true },
      { key: 'appraisal_report', label: 'Appraisal report', label_he: 'דוח שמאי', per_borrower: false, is_active: true },
      { key: 'loan_approval', label: "Bank's approval letter", label_he: 'אישור עקרוני מהבנק', per_borrower: false, is_active: true },
    ]);
  });

  test('no custom fields; one read of all settings gives the same lists; another organization gets ids of its own', async () => {
    expect(await listCustomFields(org)).toEqual([]);
    const settings = await getFileSettings(org);
    expect(settings).toEqual({
      customFields: [],
      paymentSources: await listPaymentSources(org),
      milestoneTemplates: await listMilestoneTemplates(org),
      documentTemplates: await listDocumentTemplates(org),
    });
    const other = await newOrganization();
    const otherIds = (await listMilestoneTemplates(other)).map((template) => template.milestone_id);
    expect(otherIds).toHaveLength(7);
    for (const template of settings.milestoneTemplates) expect(otherIds).not.toContain(template.milestone_id);
  });
});

describe('contract: custom-field create | deactivate (resources.md §9.5)', () => {
  let org: string;
  beforeAll(async () => {
    org = await newOrganization();
  });

  test('create prints {field_name, label, type, options, is_active: true}: options only for select, null otherwise', async () => {
    expect(await admin('custom-field', 'create', '--org', org, '--name', 'referral_code', '--label', 'Referral code', '--type', 'text')).toEqual({
      field_name: 'referral_code',
      label: 'Referral code',
      type: 'text',
      options: null,
      is_active: true,
    });
    expect(await admin('custom-field', 'create', '--org', org, '--name', 'lead_channel', '--label', 'Channel', '--type', 'select', '--options', 'web, phone,walk_in')).toEqual({
      field_name: 'lead_channel',
      label: 'Channel',
      type: 'select',
      options: ['web', 'phone', 'walk_in'],
      is_active: true,
    });
    for (const type of ['number', 'date', 'boolean']) {
      expect(await admin('custom-field', 'create', '--org', org, '--name', `a_${type}`, '--label', type, '--type', type)).toMatchObject({ type, options: null });
    }
    expect(await findCustomField(org, 'lead_channel')).toEqual({ field_name: 'lead_channel', label: 'Channel', type: 'select', options: ['web', 'phone', 'walk_in'], is_active: true });
    // §9.5 lists definitions in creation order, not by name.
    expect((await listCustomFields(org)).map((field) => field.field_name)).toEqual(['referral_code', 'lead_channel', 'a_number', 'a_date', 'a_boolean']);
  });

  test('deactivate prints the definition with is_active false and keeps it stored; the name stays taken', async () => {
    await admin('custom-field', 'create', '--org', org, '--name', 'old_field', '--label', 'Old', '--type', 'number');
    expect(await admin('custom-field', 'deactivate', '--org', org, '--name', 'old_field')).toEqual({
      field_name: 'old_field',
      label: 'Old',
      type: 'number',
      options: null,
      is_active: false,
    });
    expect(await findCustomField(org, 'old_field')).toMatchObject({ is_active: false });
    expect((await listCustomFields(org)).map((field) => field.field_name)).toContain('old_field');
    expect((await listCustomFields(org, { activeOnly: true })).map((field) => field.field_name)).not.toContain('old_field');
    expect(await failure('custom-field', 'create', '--org', org, '--name', 'old_field', '--label', 'Again', '--type', 'text')).toContain('already exists');
  });

  test('exit 2: a bad FIELD_NAME, an existing one, --options missing with select or given with another type, an unknown type, an unknown field or organization', async () => {
    const org = await newOrganization();
    await admin('custom-field', 'create', '--org', org, '--name', 'taken', '--label', 'Taken', '--type', 'text');
    for (const name of ['Bad', '1field', '_field', 'with-dash', 'with space', `a${'b'.repeat(64)}`, '']) {
      await failure('custom-field', 'create', '--org', org, '--name', name, '--label', 'X', '--type', 'text');
    }
    expect(await failure('custom-field', 'create', '--org', org, '--name', 'taken', '--label', 'Again', '--type', 'text')).toContain('taken already exists');
    expect(await failure('custom-field', 'create', '--org', org, '--name', 'choice', '--label', 'Choice', '--type', 'select')).toContain('--options');
    expect(await failure('custom-field', 'create', '--org', org, '--name', 'amount', '--label', 'Amount', '--type', 'number', '--options', 'a,b')).toContain('--options');
    await failure('custom-field', 'create', '--org', org, '--name', 'choice', '--label', 'Choice', '--type', 'select', '--options', 'a,,b');
    await failure('custom-field', 'create', '--org', org, '--name', 'choice', '--label', 'Choice', '--type', 'select', '--options', 'a,a');
    await failure('custom-field', 'create', '--org', org, '--name', 'choice', '--label', 'Choice', '--type', 'select', '--options', Array.from({ length: 51 }, (_, index) => `o${index}`).join(','));
    expect(await failure('custom-field', 'create', '--org', org, '--name', 'colour', '--label', 'Colour', '--type', 'color')).toContain('--type');
    await failure('custom-field', 'create', '--org', org, '--name', 'blank', '--label', '  ', '--type', 'text');
    await failure('custom-field', 'create', '--org', randomUUID(), '--name', 'orphan', '--label', 'X', '--type', 'text');
    expect(await failure('custom-field', 'deactivate', '--org', org, '--name', 'never_defined')).toContain('not found');
    await failure('custom-field', 'deactivate', '--org', randomUUID(), '--name', 'taken');
    // Nothing of the refused creates was written.
    expect((await listCustomFields(org)).map((field) => field.field_name)).toEqual(['taken']);
  });
});

describe('contract: payment-source create | deactivate', () => {
  test('create prints {key, label, is_active: true}; deactivate prints it with is_active false and keeps it listed', async () => {
    const org = await newOrganization();
    expect(await admin('payment-source', 'create', '--org', org, '--key', 'paypal', '--label', 'PayPal')).toEqual({ key: 'paypal', label: 'PayPal', is_active: true });
    expect((await listPaymentSources(org)).map((source) => source.key)).toEqual(['bank_transfer', 'credit_card', 'check', 'cash', 'bit', 'paypal']);
    expect(await admin('payment-source', 'deactivate', '--org', org, '--key', 'paypal')).toEqual({ key: 'paypal', label: 'PayPal', is_active: false });
    // A seeded source prints the contract's shape too; its Hebrew label stays stored for the app.
    expect(await admin('payment-source', 'deactivate', '--org', org, '--key', 'cash')).toEqual({ key: 'cash', label: 'Cash', is_active: false });
    expect(await findPaymentSource(org, 'cash')).toEqual({ key: 'cash', label: 'Cash', label_he: 'מזומן', is_active: false });
    expect(await findPaymentSource(org, 'paypal')).toEqual({ key: 'paypal', label: 'PayPal', is_active: false });
    expect((await listPaymentSources(org, { activeOnly: true })).map((source) => source.key)).toEqual(['bank_transfer', 'credit_card', 'check', 'bit']);
  });

  test('exit 2: an existing KEY (seeded or deactivated too), a bad KEY, an empty label, an unknown KEY or organization', async () => {
    const org = await newOrganization();
    expect(await failure('payment-source', 'create', '--org', org, '--key', 'cash', '--label', 'Cash again')).toContain('already exists');
    await admin('payment-source', 'deactivate', '--org', org, '--key', 'bit');
    await failure('payment-source', 'create', '--org', org, '--key', 'bit', '--label', 'Bit again');
    await failure('payment-source', 'create', '--org', org, '--key', 'Has Space', '--label', 'X');
    await failure('payment-source', 'create', '--org', org, '--key', 'ok', '--label', '');
    await failure('payment-source', 'create', '--org', randomUUID(), '--key', 'ok', '--label', 'X');
    expect(await failure('payment-source', 'deactivate', '--org', org, '--key', 'barter')).toContain('not found');
    expect(await findPaymentSource(org, 'cash')).toMatchObject({ label: 'Cash', is_active: true });
  });
});

describe('contract + resources.md §9.7: milestone create | deactivate', () => {
  test('create prints the template; without --order it goes 10 after the last; without --mortgage-types it applies to every file ([])', async () => {
    const org = await newOrganization();
    const created = await admin('milestone', 'create', '--org', org, '--key', 'insurance_check', '--label', 'Insurance checked', '--mortgage-types', 'purchase,refinance', '--due-offset-days', '50', '--checklist', 'Life policy | Structure policy');
    expect(created).toEqual({
      milestone_id: expect.stringMatching(UUID),
      key: 'insurance_check',
      label: 'Insurance checked',
      order: 80,
      applies_to_mortgage_types: ['purchase', 'refinance'],
      due_offset_days: 50,
      checklist: [
        { id: expect.stringMatching(UUID), label: 'Life policy' },
        { id: expect.stringMatching(UUID), label: 'Structure policy' },
      ],
      is_active: true,
    });
    expect(Object.keys(created)).toEqual(['milestone_id', 'key', 'label', 'order', 'applies_to_mortgage_types', 'due_offset_days', 'checklist', 'is_active']);
    expect(await findMilestoneTemplate(org, 'insurance_check')).toEqual(created);

    const plain = await admin('milestone', 'create', '--org', org, '--key', 'keys_handed_over', '--label', 'Keys handed over');
    expect(plain).toMatchObject({ order: 90, applies_to_mortgage_types: [], due_offset_days: null, checklist: [], is_active: true });

    const early = await admin('milestone', 'create', '--org', org, '--key', 'first_call', '--label', 'First call', '--order', '5', '--due-offset-days', '0');
    expect(early).toMatchObject({ order: 5, due_offset_days: 0 });
    expect((await listMilestoneTemplates(org)).map((template) => template.key)).toEqual([
      'first_call', 'documents_collected', 'bank_submission', 'approval_in_principle', 'appraisal', 'final_approval', 'signing', 'disbursement', 'insurance_check', 'keys_handed_over',
    ]);
  });

  test('deactivate prints the template with is_active false and keeps it; a deactivated last template still counts for the next order', async () => {
    const org = await newOrganization();
    const disbursement = await findMilestoneTemplate(org, 'disbursement');
    // The template's fields of the contract (a seeded one's Hebrew labels are not printed).
    const { label_he: _labelHe, ...printed } = disbursement as unknown as Record<string, unknown>;
    expect(await admin('milestone', 'deactivate', '--org', org, '--key', 'disbursement')).toEqual({
      ...printed,
      checklist: (disbursement!.checklist as Array<{ id: string; label: string }>).map(({ id, label }) => ({ id, label })),
      is_active: false,
    });
    expect(await findMilestoneTemplateById(org, disbursement!.milestone_id)).toMatchObject({ key: 'disbursement', is_active: false });
    expect((await listMilestoneTemplates(org, { activeOnly: true })).map((template) => template.key)).not.toContain('disbursement');
    expect(await admin('milestone', 'create', '--org', org, '--key', 'after', '--label', 'After')).toMatchObject({ order: 80 });
  });

  test('exit 2: an existing KEY, an unknown mortgage type, a bad --due-offset-days or --order, an empty checklist item, an unknown KEY', async () => {
    const org = await newOrganization();
    expect(await failure('milestone', 'create', '--org', org, '--key', 'signing', '--label', 'Signing again')).toContain('already exists');
    expect(await failure('milestone', 'create', '--org', org, '--key', 'm1', '--label', 'M', '--mortgage-types', 'purchase,lease')).toContain('lease');
    for (const days of ['-1', '1.5', 'soon', '']) await failure('milestone', 'create', '--org', org, '--key', 'm1', '--label', 'M', `--due-offset-days=${days}`);
    for (const order of ['ten', '2.5']) await failure('milestone', 'create', '--org', org, '--key', 'm1', '--label', 'M', '--order', order);
    await failure('milestone', 'create', '--org', org, '--key', 'm1', '--label', 'M', '--checklist', 'one||two');
    await failure('milestone', 'create', '--org', org, '--key', 'm1', '--label', 'M', '--mortgage-types', 'purchase,');
    await failure('milestone', 'create', '--org', randomUUID(), '--key', 'm1', '--label', 'M');
    expect(await failure('milestone', 'deactivate', '--org', org, '--key', 'never_there')).toContain('not found');
    expect(await findMilestoneTemplate(org, 'm1')).toBeUndefined();
    expect(await listMilestoneTemplates(org)).toHaveLength(7);
  });
});

describe('contract + resources.md §9.8: document-template create | deactivate', () => {
  test('create prints {key, label, per_borrower, is_active: true}; --per-borrower sets per_borrower; deactivate keeps it with is_active false', async () => {
    const org = await newOrganization();
    expect(await admin('document-template', 'create', '--org', org, '--key', 'pension_statement', '--label', 'Pension statement', '--per-borrower')).toEqual({
      key: 'pension_statement',
      label: 'Pension statement',
      per_borrower: true,
      is_active: true,
    });
    expect(await admin('document-template', 'create', '--org', org, '--key', 'land_registry', '--label', 'Land registry extract')).toEqual({
      key: 'land_registry',
      label: 'Land registry extract',
      per_borrower: false,
      is_active: true,
    });
    expect(await admin('document-template', 'deactivate', '--org', org, '--key', 'land_registry')).toEqual({
      key: 'land_registry',
      label: 'Land registry extract',
      per_borrower: false,
      is_active: false,
    });
    expect(await findDocumentTemplate(org, 'land_registry')).toMatchObject({ is_active: false });
    const templates = await listDocumentTemplates(org);
    expect(templates.map((template) => template.key).slice(-2)).toEqual(['pension_statement', 'land_registry']);
    expect((await listDocumentTemplates(org, { activeOnly: true })).map((template) => template.key)).not.toContain('land_registry');
  });

  test('exit 2: an existing KEY, a bad KEY, an unknown KEY or organization', async () => {
    const org = await newOrganization();
    expect(await failure('document-template', 'create', '--org', org, '--key', 'id_card', '--label', 'ID again')).toContain('already exists');
    await failure('document-template', 'create', '--org', org, '--key', 'ID#card', '--label', 'X');
    await failure('document-template', 'create', '--org', 'not-a-uuid', '--key', 'x', '--label', 'X');
    expect(await failure('document-template', 'deactivate', '--org', org, '--key', 'passport_scan')).toContain('not found');
    expect(await findDocumentTemplate(org, 'id_card')).toMatchObject({ label: 'ID card with appendix', is_active: true });
  });
});

describe('contract: --help of the file-settings commands', () => {
  const USAGE_LINES: Record<string, string[]> = {
    'custom-field create': ['--org ORG', '--name FIELD_NAME', '--label LABEL', '--type text|number|date|boolean|select', '[--options a,b,...]'],
    'custom-field deactivate': ['--org ORG', '--name FIELD_NAME'],
    'payment-source create': ['--org ORG', '--key KEY', '--label LABEL'],
    'payment-source deactivate': ['--org ORG', '--key KEY'],
    'milestone create': ['--org ORG', '--key KEY', '--label LABEL', '[--order N]', '[--mortgage-types a,b]', '[--due-offset-days N]', '[--checklist "item 1|item 2"]'],
    'milestone deactivate': ['--org ORG', '--key KEY'],
    'document-template create': ['--org ORG', '--key KEY', '--label LABEL', '[--per-borrower]'],
    'document-template deactivate': ['--org ORG', '--key KEY'],
  };

  test('<command> --help prints its usage line with the contract options and what it prints, exit 0', async () => {
    for (const [name, options] of Object.entries(USAGE_LINES)) {
      const result = await runCli([...name.split(' '), '--help']);
      expect({ name, exitCode: result.exitCode }).toEqual({ name, exitCode: 0 });
      const [usageLine] = result.stdout!.split('\n');
      expect(usageLine).toBe(`Usage: npx mortgage-admin ${name} ${options.join(' ')}`);
      expect(result.stdout).toMatch(/\nPrints .+\./);
    }
  });

  test('the full usage and a group (milestone --help) list the commands; a group alone asks for its subcommand', async () => {
    const all = await runCli(['--help']);
    for (const name of Object.keys(USAGE_LINES)) expect(all.stdout).toContain(`  ${name} --org ORG`);
    const group = await runCli(['milestone', '--help']);
    expect(group.exitCode).toBe(0);
    expect(group.stdout).toContain('milestone create --org ORG');
    expect(group.stdout).toContain('milestone deactivate --org ORG');
    expect(group.stdout).not.toContain('payment-source create');
    expect(await failure('document-template')).toBe('"document-template" needs a subcommand: document-template create, document-template deactivate');
  });

  test('a missing required option or an option of another command exits 2', async () => {
    expect(await failure('custom-field', 'create', '--org', randomUUID(), '--name', 'x', '--label', 'X')).toBe('--type is required');
    expect(await failure('payment-source', 'create', '--org', randomUUID(), '--key', 'x', '--label', 'X', '--per-borrower')).toContain('unknown option --per-borrower');
  });
});
