import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newId, nowIso } from '../ids';
import type { SystemListValue } from '../lists/system-lists';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { fileSettingKeys, type ItemKey } from '../storage/keys';
import { queryAll } from '../storage/paginated-requests';
import type { TransactItem } from '../storage/transactions';
import { DEFAULT_DOCUMENT_TEMPLATES, DEFAULT_MILESTONE_TEMPLATES, DEFAULT_PAYMENT_SOURCES } from './file-settings-defaults';

/**
 * What an organization configures for its mortgage files (resources.md §12, §9.5, §9.7, §9.8):
 * custom-field definitions, payment sources, milestone templates and required-document templates.
 * Each setting is one item in the organization's file-settings partition, named by its
 * `field_name` or `key`; deactivating keeps the item with `is_active: false`, so files that already
 * use a setting keep reading it. `label_he` is present where the seeded defaults give one.
 */
export type CustomFieldType = SystemListValue<'custom-field-types'>;
export type MortgageType = SystemListValue<'mortgage-types'>;

export interface CustomFieldDefinition {
  field_name: string;
  label: string;
  type: CustomFieldType;
  /** The choices of a `select` field (1–50); `null` for every other type. */
  options: string[] | null;
  is_active: boolean;
}

export interface PaymentSource {
  key: string;
  label: string;
  label_he?: string;
  is_active: boolean;
}

export interface ChecklistItem {
  id: string;
  label: string;
  label_he?: string;
}

export interface MilestoneTemplate {
  milestone_id: string;
  key: string;
  label: string;
  label_he?: string;
  order: number;
  /** The display condition: the file's `mortgage_type` must be one of these; empty = every file. */
  applies_to_mortgage_types: MortgageType[];
  /** Days after the file's creation day its due date falls on; `null` = no due date. */
  due_offset_days: number | null;
  checklist: ChecklistItem[];
  is_active: boolean;
}

export interface DocumentTemplate {
  key: string;
  label: string;
  label_he?: string;
  /** One requirement per borrower (true) or one for the file (false). */
  per_borrower: boolean;
  is_active: boolean;
}

export interface FileSettings {
  customFields: CustomFieldDefinition[];
  paymentSources: PaymentSource[];
  milestoneTemplates: MilestoneTemplate[];
  documentTemplates: DocumentTemplate[];
}

export interface ListOptions {
  /** Only the settings that are active (default: every setting, deactivated ones included). */
  activeOnly?: boolean;
}

export type FileSettingKind = 'custom field' | 'payment source' | 'milestone template' | 'document template';

/** A create named a `field_name` or `key` the organization already has (active or not). */
export class FileSettingAlreadyExists extends Error {
  constructor(readonly kind: FileSettingKind, readonly settingName: string) {
    super(`${kind} ${settingName} already exists`);
    this.name = 'FileSettingAlreadyExists';
  }
}

/** A deactivation named a `field_name` or `key` the organization does not have. */
export class FileSettingNotFound extends Error {
  constructor(readonly kind: FileSettingKind, readonly settingName: string) {
    super(`${kind} ${settingName} not found`);
    this.name = 'FileSettingNotFound';
  }
}

type Item = Record<string, unknown>;

const withHebrewLabel = (item: Item): { label_he?: string } => (typeof item.label_he === 'string' ? { label_he: item.label_he } : {});

/** One kind of setting: where its items live and how an item becomes a domain object. */
interface SettingKind<T> {
  kind: FileSettingKind;
  entity: string;
  prefix: string;
  key: (organizationId: string, name: string) => ItemKey;
  nameOf: (setting: T) => string;
  fromItem: (item: Item) => T;
}

const customFields: SettingKind<CustomFieldDefinition> = {
  kind: 'custom field',
  entity: 'custom_field_definition',
  prefix: fileSettingKeys.customFieldPrefix,
  key: fileSettingKeys.customField,
  nameOf: (setting) => setting.field_name,
  fromItem: (item) => ({
    field_name: item.field_name as string,
    label: item.label as string,
    type: item.type as CustomFieldType,
    options: (item.options as string[] | undefined) ?? null,
    is_active: item.is_active === true,
  }),
};

const paymentSources: SettingKind<PaymentSource> = {
  kind: 'payment source',
  entity: 'payment_source',
  prefix: fileSettingKeys.paymentSourcePrefix,
  key: fileSettingKeys.paymentSource,
  nameOf: (setting) => setting.key,
  fromItem: (item) => ({ key: item.key as string, label: item.label as string, ...withHebrewLabel(item), is_active: item.is_active === true }),
};

const milestoneTemplates: SettingKind<MilestoneTemplate> = {
  kind: 'milestone template',
  entity: 'milestone_template',
  prefix: fileSettingKeys.milestoneTemplatePrefix,
  key: fileSettingKeys.milestoneTemplate,
  nameOf: (setting) => setting.key,
  fromItem: (item) => ({
    milestone_id: item.milestone_id as string,
    key: item.key as string,
    label: item.label as string,
    ...withHebrewLabel(item),
    order: Number(item.order),
    applies_to_mortgage_types: (item.applies_to_mortgage_types as MortgageType[] | undefined) ?? [],
    due_offset_days: item.due_offset_days === null || item.due_offset_days === undefined ? null : Number(item.due_offset_days),
    checklist: ((item.checklist as Item[] | undefined) ?? []).map((entry) => ({
      id: entry.id as string,
      label: entry.label as string,
      ...withHebrewLabel(entry),
    })),
    is_active: item.is_active === true,
  }),
};

const documentTemplates: SettingKind<DocumentTemplate> = {
  kind: 'document template',
  entity: 'document_template',
  prefix: fileSettingKeys.documentTemplatePrefix,
  key: fileSettingKeys.documentTemplate,
  nameOf: (setting) => setting.key,
  fromItem: (item) => ({
    key: item.key as string,
    label: item.label as string,
    ...withHebrewLabel(item),
    per_borrower: item.per_borrower === true,
    is_active: item.is_active === true,
  }),
};

/**
 * The stored item: the setting plus its keys and `created_order`, a time-ordered id taken when it
 * was written (in one process such ids keep increasing, also within one transaction), so a list is
 * in creation order although the sort key is the name.
 */
function toItem<T extends object>(settingKind: SettingKind<T>, organizationId: string, setting: T, createdAt: string): Item {
  return {
    ...settingKind.key(organizationId, settingKind.nameOf(setting)),
    entity: settingKind.entity,
    organization_id: organizationId,
    ...setting,
    created_at: createdAt,
    created_order: newId(),
  };
}

const inCreationOrder = (one: Item, other: Item) => String(one.created_order).localeCompare(String(other.created_order));

/** §9.7: templates sorted by `order`, ties by `key`. */
const byOrderThenKey = (one: MilestoneTemplate, other: MilestoneTemplate) => one.order - other.order || one.key.localeCompare(other.key);

function readItems<T extends { is_active: boolean }>(settingKind: SettingKind<T>, items: Item[], options: ListOptions): T[] {
  const settings = items
    .filter((item) => String(item.sk).startsWith(settingKind.prefix))
    .sort(inCreationOrder)
    .map(settingKind.fromItem);
  return options.activeOnly ? settings.filter((setting) => setting.is_active) : settings;
}

/** The organization's settings of one kind (a sort-key prefix), or of every kind without one. */
async function querySettings(organizationId: string, prefix?: string): Promise<Item[]> {
  const pk = fileSettingKeys.settingsOfOrganization(organizationId);
  return queryAll({
    TableName: getTableName(),
    KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
    ExpressionAttributeValues: prefix ? { ':pk': pk, ':prefix': prefix } : { ':pk': pk },
    ConsistentRead: true,
  });
}

async function listKind<T extends { is_active: boolean }>(settingKind: SettingKind<T>, organizationId: string, options: ListOptions): Promise<T[]> {
  return readItems(settingKind, await querySettings(organizationId, settingKind.prefix), options);
}

async function findSetting<T>(settingKind: SettingKind<T>, organizationId: string, name: string): Promise<T | undefined> {
  const result = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: settingKind.key(organizationId, name), ConsistentRead: true }));
  return result.Item ? settingKind.fromItem(result.Item) : undefined;
}

async function createSetting<T extends object>(settingKind: SettingKind<T>, organizationId: string, setting: T): Promise<T> {
  try {
    await getDocumentClient().send(
      new PutCommand({
        TableName: getTableName(),
        Item: toItem(settingKind, organizationId, setting, nowIso()),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new FileSettingAlreadyExists(settingKind.kind, settingKind.nameOf(setting));
    throw error;
  }
  return setting;
}

async function deactivateSetting<T>(settingKind: SettingKind<T>, organizationId: string, name: string): Promise<T> {
  try {
    const result = await getDocumentClient().send(
      new UpdateCommand({
        TableName: getTableName(),
        Key: settingKind.key(organizationId, name),
        UpdateExpression: 'SET is_active = :false, updated_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':false': false, ':now': nowIso() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return settingKind.fromItem(result.Attributes!);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new FileSettingNotFound(settingKind.kind, name);
    throw error;
  }
}

// ---- Reads ----

/** Every setting of the organization in one Query (e.g. for creating a file: its milestones and requirements). */
export async function getFileSettings(organizationId: string, options: ListOptions = {}): Promise<FileSettings> {
  const items = await querySettings(organizationId);
  return {
    customFields: readItems(customFields, items, options),
    paymentSources: readItems(paymentSources, items, options),
    milestoneTemplates: readItems(milestoneTemplates, items, options).sort(byOrderThenKey),
    documentTemplates: readItems(documentTemplates, items, options),
  };
}

/** Custom-field definitions in creation order (§9.5 lists the active ones in that order). */
export function listCustomFields(organizationId: string, options: ListOptions = {}): Promise<CustomFieldDefinition[]> {
  return listKind(customFields, organizationId, options);
}

/** The definition of `fieldName`, active or not. */
export function findCustomField(organizationId: string, fieldName: string): Promise<CustomFieldDefinition | undefined> {
  return findSetting(customFields, organizationId, fieldName);
}

/** Payment sources in creation order (the seeded ones first, in the order of §12). */
export function listPaymentSources(organizationId: string, options: ListOptions = {}): Promise<PaymentSource[]> {
  return listKind(paymentSources, organizationId, options);
}

export function findPaymentSource(organizationId: string, key: string): Promise<PaymentSource | undefined> {
  return findSetting(paymentSources, organizationId, key);
}

/** Milestone templates sorted by `order`, ties by `key` (§9.7). */
export async function listMilestoneTemplates(organizationId: string, options: ListOptions = {}): Promise<MilestoneTemplate[]> {
  return (await listKind(milestoneTemplates, organizationId, options)).sort(byOrderThenKey);
}

export function findMilestoneTemplate(organizationId: string, key: string): Promise<MilestoneTemplate | undefined> {
  return findSetting(milestoneTemplates, organizationId, key);
}

/** The template whose `milestone_id` this is (what `POST /milestones/progress` names), active or not. */
export async function findMilestoneTemplateById(organizationId: string, milestoneId: string): Promise<MilestoneTemplate | undefined> {
  return (await listMilestoneTemplates(organizationId)).find((template) => template.milestone_id === milestoneId);
}

/** Required-document templates in creation order (the seeded ones first, in the order of §12). */
export function listDocumentTemplates(organizationId: string, options: ListOptions = {}): Promise<DocumentTemplate[]> {
  return listKind(documentTemplates, organizationId, options);
}

export function findDocumentTemplate(organizationId: string, key: string): Promise<DocumentTemplate | undefined> {
  return findSetting(documentTemplates, organizationId, key);
}

// ---- Writes (the admin commands); a taken name throws FileSettingAlreadyExists, an unknown one FileSettingNotFound ----

export const createCustomField = (organizationId: string, definition: CustomFieldDefinition) =>
  createSetting(customFields, organizationId, definition);
export const deactivateCustomField = (organizationId: string, fieldName: string) => deactivateSetting(customFields, organizationId, fieldName);

export const createPaymentSource = (organizationId: string, source: PaymentSource) => createSetting(paymentSources, organizationId, source);
export const deactivatePaymentSource = (organizationId: string, key: string) => deactivateSetting(paymentSources, organizationId, key);

export const createMilestoneTemplate = (organizationId: string, template: MilestoneTemplate) =>
  createSetting(milestoneTemplates, organizationId, template);
export const deactivateMilestoneTemplate = (organizationId: string, key: string) => deactivateSetting(milestoneTemplates, organizationId, key);

export const createDocumentTemplate = (organizationId: string, template: DocumentTemplate) =>
  createSetting(documentTemplates, organizationId, template);
export const deactivateDocumentTemplate = (organizationId: string, key: string) => deactivateSetting(documentTemplates, organizationId, key);

/**
 * The puts that give a new organization the defaults of §12 (18 items), for the transaction that
 * creates the organization: each with its own ids, all active.
 */
export function defaultFileSettingPuts(organizationId: string): TransactItem[] {
  const createdAt = nowIso();
  const put = <T extends object>(settingKind: SettingKind<T>, setting: T): TransactItem => ({
    Put: { TableName: getTableName(), Item: toItem(settingKind, organizationId, setting, createdAt), ConditionExpression: 'attribute_not_exists(pk)' },
  });
  return [
    ...DEFAULT_PAYMENT_SOURCES.map((source) => put(paymentSources, { ...source, is_active: true })),
    ...DEFAULT_MILESTONE_TEMPLATES.map((template) =>
      put(milestoneTemplates, {
        milestone_id: newId(),
        key: template.key,
        label: template.label,
        label_he: template.label_he,
        order: template.order,
        applies_to_mortgage_types: [],
        due_offset_days: template.due_offset_days,
        checklist: template.checklist.map((entry) => ({ id: newId(), ...entry })),
        is_active: true,
      }),
    ),
    ...DEFAULT_DOCUMENT_TEMPLATES.map((template) => put(documentTemplates, { ...template, is_active: true })),
  ];
}
