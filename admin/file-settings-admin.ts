import { newId } from '../shared/ids';
import { listValues } from '../shared/lists/system-lists';
import {
  createCustomField,
  createDocumentTemplate,
  createMilestoneTemplate,
  createPaymentSource,
  deactivateCustomField,
  deactivateDocumentTemplate,
  deactivateMilestoneTemplate,
  deactivatePaymentSource,
  FileSettingAlreadyExists,
  FileSettingNotFound,
  listDocumentTemplates,
  listMilestoneTemplates,
  type CustomFieldDefinition,
  type CustomFieldType,
  type DocumentTemplate,
  type MilestoneTemplate,
  type MortgageType,
  type PaymentSource,
} from '../shared/organizations/file-settings.repository';
import { AdminInputError, integerOption } from './admin-error';
import { requireOrganization } from './organization-admin';

/**
 * `mortgage-admin custom-field | payment-source | milestone | document-template create | deactivate`
 * (../shared/contract.md, resources.md §12): what "the app" configures for mortgage files. Input is
 * checked here; the repository keeps names unique and refuses unknown ones with conditional writes.
 */
export const FIELD_NAME_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;
/** Keys of payment sources and templates, as the seeded ones (`bank_transfer`, `id_card`). */
export const SETTING_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const MAX_SELECT_OPTIONS = 50;
/** Without `--order` a milestone goes this far after the last template (the seeded ones are 10 apart). */
const ORDER_STEP = 10;

const CUSTOM_FIELD_TYPES: readonly string[] = listValues('custom-field-types');
const MORTGAGE_TYPES: readonly string[] = listValues('mortgage-types');

function label(value: string): string {
  if (!value.trim()) throw new AdminInputError('--label must not be empty');
  return value.trim();
}

function settingKey(value: string): string {
  if (!SETTING_KEY_PATTERN.test(value)) throw new AdminInputError('--key must be 1 to 64 lowercase letters, digits, _ or -, starting with a letter or digit');
  return value;
}

/** `a,b` or `item 1|item 2`: trimmed, none empty, none twice. */
function splitList(option: string, value: string, separator: string): string[] {
  const items = value.split(separator).map((item) => item.trim());
  if (items.some((item) => item === '')) throw new AdminInputError(`--${option} must not have an empty entry`);
  const repeated = items.find((item, index) => items.indexOf(item) !== index);
  if (repeated !== undefined) throw new AdminInputError(`--${option} names "${repeated}" twice`);
  return items;
}

async function inOrganization<T>(organizationId: string, write: () => Promise<T>): Promise<T> {
  await requireOrganization(organizationId);
  try {
    return await write();
  } catch (error) {
    if (error instanceof FileSettingAlreadyExists || error instanceof FileSettingNotFound) throw new AdminInputError(error.message);
    throw error;
  }
}

export async function createCustomFieldDefinition(input: {
  organizationId: string;
  name: string;
  label: string;
  type: string;
  options?: string;
}): Promise<CustomFieldDefinition> {
  if (!FIELD_NAME_PATTERN.test(input.name)) {
    throw new AdminInputError('--name must match ^[a-z][a-z0-9_]{0,63}$ (a lowercase letter, then up to 63 lowercase letters, digits or _)');
  }
  if (!CUSTOM_FIELD_TYPES.includes(input.type)) throw new AdminInputError(`--type must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`);
  let options: string[] | null = null;
  if (input.type === 'select') {
    if (input.options === undefined) throw new AdminInputError('--options is required with --type select');
    options = splitList('options', input.options, ',');
    if (options.length > MAX_SELECT_OPTIONS) throw new AdminInputError(`--options takes at most ${MAX_SELECT_OPTIONS} choices`);
  } else if (input.options !== undefined) {
    throw new AdminInputError(`--options is only for --type select, not ${input.type}`);
  }
  const definition: CustomFieldDefinition = {
    field_name: input.name,
    label: label(input.label),
    type: input.type as CustomFieldType,
    options,
    is_active: true,
  };
  return inOrganization(input.organizationId, () => createCustomField(input.organizationId, definition));
}

export function deactivateCustomFieldDefinition(organizationId: string, fieldName: string): Promise<CustomFieldDefinition> {
  return inOrganization(organizationId, () => deactivateCustomField(organizationId, fieldName));
}

export async function addPaymentSource(organizationId: string, key: string, labelText: string): Promise<PaymentSource> {
  const source: PaymentSource = { key: settingKey(key), label: label(labelText), is_active: true };
  return inOrganization(organizationId, () => createPaymentSource(organizationId, source));
}

/**
 * The printed shapes are the contract's (`{key, label, is_active}`, the template's fields): the
 * Hebrew labels the seeded items also keep (for the app) are not printed, so a seeded item and one
 * made with `create` print alike.
 */
function contractShape<T>(value: T): T {
  if (Array.isArray(value)) return value.map(contractShape) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => name !== 'label_he').map(([name, field]) => [name, contractShape(field)])) as T;
}

export async function removePaymentSource(organizationId: string, key: string): Promise<PaymentSource> {
  return contractShape(await inOrganization(organizationId, () => deactivatePaymentSource(organizationId, key)));
}

/**
 * Active templates an organization may have of each kind (milestones; required documents). A file's
 * create writes one row per active milestone template and one requirement per file-level document
 * template in its one transaction (DynamoDB: 100 items, about 10 of them the file's own), and a
 * borrower's one requirement per borrower-level template in its own: 40 + 40 keep both within it.
 */
export const ACTIVE_TEMPLATES_MAX = 40;

function assertRoomForTemplate(active: number, kind: string): void {
  if (active >= ACTIVE_TEMPLATES_MAX) {
    throw new AdminInputError(`the organization already has ${ACTIVE_TEMPLATES_MAX} active ${kind} templates, the most a file can be created with; deactivate one first`);
  }
}

export async function addMilestoneTemplate(input: {
  organizationId: string;
  key: string;
  label: string;
  order?: string;
  mortgageTypes?: string;
  dueOffsetDays?: string;
  checklist?: string;
}): Promise<MilestoneTemplate> {
  const key = settingKey(input.key);
  const templateLabel = label(input.label);
  const explicitOrder = input.order === undefined ? undefined : integerOption('order', input.order);
  // Without --mortgage-types the template has no display condition: it applies to every file.
  const mortgageTypes = input.mortgageTypes === undefined ? [] : splitList('mortgage-types', input.mortgageTypes, ',');
  const unknown = mortgageTypes.filter((type) => !MORTGAGE_TYPES.includes(type));
  if (unknown.length > 0) throw new AdminInputError(`unknown mortgage type(s) ${unknown.join(', ')}; known: ${MORTGAGE_TYPES.join(', ')}`);
  const dueOffsetDays = input.dueOffsetDays === undefined ? null : integerOption('due-offset-days', input.dueOffsetDays, 0);
  const checklist = input.checklist === undefined ? [] : splitList('checklist', input.checklist, '|').map((item) => ({ id: newId(), label: item }));
  return inOrganization(input.organizationId, async () => {
    assertRoomForTemplate((await listMilestoneTemplates(input.organizationId, { activeOnly: true })).length, 'milestone');
    const order = explicitOrder ?? (await orderAfterLast(input.organizationId));
    const template: MilestoneTemplate = {
      milestone_id: newId(),
      key,
      label: templateLabel,
      order,
      applies_to_mortgage_types: mortgageTypes as MortgageType[],
      due_offset_days: dueOffsetDays,
      checklist,
      is_active: true,
    };
    return createMilestoneTemplate(input.organizationId, template);
  });
}

/** After every template, deactivated ones included, so a new one never shares a place with an old one. */
async function orderAfterLast(organizationId: string): Promise<number> {
  const templates = await listMilestoneTemplates(organizationId);
  return templates.length === 0 ? ORDER_STEP : Math.max(...templates.map((template) => template.order)) + ORDER_STEP;
}

export async function removeMilestoneTemplate(organizationId: string, key: string): Promise<MilestoneTemplate> {
  return contractShape(await inOrganization(organizationId, () => deactivateMilestoneTemplate(organizationId, key)));
}

export async function addDocumentTemplate(organizationId: string, key: string, labelText: string, perBorrower: boolean): Promise<DocumentTemplate> {
  const template: DocumentTemplate = { key: settingKey(key), label: label(labelText), per_borrower: perBorrower, is_active: true };
  return inOrganization(organizationId, async () => {
    assertRoomForTemplate((await listDocumentTemplates(organizationId, { activeOnly: true })).length, 'document');
    return createDocumentTemplate(organizationId, template);
  });
}

export async function removeDocumentTemplate(organizationId: string, key: string): Promise<DocumentTemplate> {
  return contractShape(await inOrganization(organizationId, () => deactivateDocumentTemplate(organizationId, key)));
}
