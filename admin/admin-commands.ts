import { AdminInputError } from './admin-error';
import * as documentAdmin from './document-admin';
import * as fileSettingsAdmin from './file-settings-admin';
import * as intakeAdmin from './intake-admin';
import * as leadAdmin from './lead-admin';
import * as customerAdmin from './customer-admin';
import * as taskAdmin from './task-admin';
import * as admin from './organization-admin';

/**
 * Every `mortgage-admin` command (../shared/contract.md) in one table: its options, what it does
 * and prints, and how it runs. The parser validates options against this table and `--help` is
 * written from it, so the two cannot drift apart.
 */
export type Flags = Record<string, string | boolean | undefined>;

export interface OptionSpec {
  type: 'string' | 'boolean';
  /** The placeholder shown in usage, e.g. `NAME` or `active|inactive`; string options only. */
  value?: string;
  required?: boolean;
  description: string;
  short?: string;
}

export interface CommandSpec {
  summary: string;
  prints: string;
  /** In the order the usage line shows them. */
  options: Record<string, OptionSpec>;
  run: (flags: Flags) => Promise<unknown>;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS: Record<string, OptionSpec> = {
  aws: { type: 'boolean', description: "use the deployed table named by TABLE_NAME, with the environment's AWS credentials and region" },
  help: { type: 'boolean', short: 'h', description: 'print this usage and exit' },
};

function required(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new AdminInputError(`--${name} is required`);
  return value;
}

function optional(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

const organizationOption: OptionSpec = { type: 'string', value: 'ORG', required: true, description: 'the organization id' };
const statusKindOption: OptionSpec = { type: 'string', value: 'lead|mortgage-file', required: true, description: 'which status list' };
const settingKeyOption: OptionSpec = { type: 'string', value: 'KEY', required: true, description: 'the key: lowercase letters, digits, _ or - (unique in the organization)' };
const settingLabelOption: OptionSpec = { type: 'string', value: 'LABEL', required: true, description: 'the label shown to users' };
const intakeOption: OptionSpec = { type: 'string', value: 'ID', required: true, description: 'the intake endpoint id (intake_id)' };

export const adminCommands: Record<string, CommandSpec> = {
  'org create': {
    summary:
      'Create an organization with an active subscription, the system lead and mortgage-file statuses, and the default payment sources, milestone and required-document templates.',
    prints: '{"organization_id"}',
    options: { name: { type: 'string', value: 'NAME', required: true, description: "the organization's name" } },
    run: (flags) => admin.createOrganization(required(flags, 'name')),
  },
  'org subscription': {
    summary: "Set an organization's subscription status.",
    prints: '{"organization_id", "subscription_status"}',
    options: {
      org: organizationOption,
      status: { type: 'string', value: 'active|inactive', required: true, description: 'the new subscription status' },
    },
    // Its keys and intake endpoints keep a copy of the status, written with it.
    run: (flags) => admin.setSubscription(required(flags, 'org'), required(flags, 'status')),
  },
  'user create': {
    summary: 'Create an active user.',
    prints: '{"user_id"}',
    options: {
      org: organizationOption,
      name: { type: 'string', value: 'NAME', required: true, description: "the user's name" },
      email: { type: 'string', value: 'EMAIL', required: true, description: "the user's email address" },
      role: { type: 'string', value: 'admin|member', description: 'the role (default member)' },
    },
    run: (flags) =>
      admin.createUser(required(flags, 'org'), required(flags, 'name'), required(flags, 'email'), optional(flags, 'role') ?? 'member'),
  },
  'user deactivate': {
    summary: 'Deactivate a user.',
    prints: '{"user_id", "is_active": false}',
    options: { user: { type: 'string', value: 'USER', required: true, description: 'the user id' } },
    run: (flags) => admin.deactivateUser(required(flags, 'user')),
  },
  'key create': {
    summary: 'Create an API key for a user; the key is shown only here.',
    prints: '{"key_id", "api_key"}',
    options: {
      org: organizationOption,
      user: { type: 'string', value: 'USER', required: true, description: 'the user id the key acts for' },
      permissions: { type: 'string', value: 'P[,P...]', required: true, description: 'comma-separated permissions, e.g. admin or leads:*,read' },
      'expires-at': { type: 'string', value: 'ISO', description: 'when the key expires (ISO 8601); default never' },
    },
    run: (flags) =>
      admin.createKey(required(flags, 'org'), required(flags, 'user'), required(flags, 'permissions'), optional(flags, 'expires-at')),
  },
  'key revoke': {
    summary: 'Revoke an API key.',
    prints: '{"key_id", "revoked": true}',
    options: { key: { type: 'string', value: 'KEY_ID', required: true, description: 'the key id (key_id, not the key itself)' } },
    run: (flags) => admin.revokeKey(required(flags, 'key')),
  },
  'status create': {
    summary: 'Add a lead or mortgage-file status to an organization.',
    prints: 'the status item',
    options: {
      org: organizationOption,
      kind: statusKindOption,
      value: { type: 'string', value: 'KEY', required: true, description: 'the status key: lowercase letters, digits, _ or -' },
      label: { type: 'string', value: 'LABEL', required: true, description: 'the label shown to users' },
      default: { type: 'boolean', description: 'make it the default status' },
      converted: { type: 'boolean', description: 'make it the converted status' },
      order: { type: 'string', value: 'N', description: 'its position (default after the last)' },
      bg: { type: 'string', value: '#RRGGBB', description: 'background colour (default #ECEFF1)' },
      text: { type: 'string', value: '#RRGGBB', description: 'text colour (default #263238)' },
    },
    run: (flags) =>
      admin.createStatus({
        organizationId: required(flags, 'org'),
        kind: required(flags, 'kind'),
        value: required(flags, 'value'),
        label: required(flags, 'label'),
        isDefault: flags.default === true,
        isConverted: flags.converted === true,
        order: optional(flags, 'order'),
        bg: optional(flags, 'bg'),
        text: optional(flags, 'text'),
      }),
  },
  'status deactivate': {
    summary: 'Deactivate a status of an organization.',
    prints: 'the status item',
    options: {
      org: organizationOption,
      kind: statusKindOption,
      value: { type: 'string', value: 'KEY', required: true, description: 'the status key' },
    },
    run: (flags) => admin.deactivateStatus(required(flags, 'org'), required(flags, 'kind'), required(flags, 'value')),
  },
  'custom-field create': {
    summary: 'Define a custom field of mortgage files.',
    prints: 'the definition {"field_name", "label", "type", "options", "is_active": true} (options null except for select)',
    options: {
      org: organizationOption,
      name: { type: 'string', value: 'FIELD_NAME', required: true, description: 'the field name, ^[a-z][a-z0-9_]{0,63}$ (unique in the organization)' },
      label: settingLabelOption,
      type: { type: 'string', value: 'text|number|date|boolean|select', required: true, description: "the values' type" },
      options: { type: 'string', value: 'a,b,...', description: 'the choices of a select field, 1 to 50 (required with select, refused with the other types)' },
    },
    run: (flags) =>
      fileSettingsAdmin.createCustomFieldDefinition({
        organizationId: required(flags, 'org'),
        name: required(flags, 'name'),
        label: required(flags, 'label'),
        type: required(flags, 'type'),
        options: optional(flags, 'options'),
      }),
  },
  'custom-field deactivate': {
    summary: 'Deactivate a custom field; values files already hold stay stored.',
    prints: 'the definition, "is_active": false',
    options: { org: organizationOption, name: { type: 'string', value: 'FIELD_NAME', required: true, description: 'the field name' } },
    run: (flags) => fileSettingsAdmin.deactivateCustomFieldDefinition(required(flags, 'org'), required(flags, 'name')),
  },
  'payment-source create': {
    summary: 'Add a payment source (how a payment was made).',
    prints: '{"key", "label", "is_active": true}',
    options: { org: organizationOption, key: settingKeyOption, label: settingLabelOption },
    run: (flags) => fileSettingsAdmin.addPaymentSource(required(flags, 'org'), required(flags, 'key'), required(flags, 'label')),
  },
  'payment-source deactivate': {
    summary: 'Deactivate a payment source; payments already recorded keep it.',
    prints: '{"key", "label", "is_active": false}',
    options: { org: organizationOption, key: { ...settingKeyOption, description: 'the payment source key' } },
    run: (flags) => fileSettingsAdmin.removePaymentSource(required(flags, 'org'), required(flags, 'key')),
  },
  'milestone create': {
    summary: 'Add a milestone template to the files of the organization.',
    prints:
      'the template {"milestone_id", "key", "label", "order", "applies_to_mortgage_types", "due_offset_days", "checklist": [{"id", "label"}], "is_active": true}',
    options: {
      org: organizationOption,
      key: settingKeyOption,
      label: settingLabelOption,
      order: { type: 'string', value: 'N', description: 'its position, an integer (default the last order + 10, or 10 for the first)' },
      'mortgage-types': {
        type: 'string',
        value: 'a,b',
        description: 'the mortgage types of the files it applies to (the mortgage-types list); default every file: applies_to_mortgage_types []',
      },
      'due-offset-days': { type: 'string', value: 'N', description: "days after the file's creation it is due, an integer >= 0 (default no due date: null)" },
      checklist: { type: 'string', value: '"item 1|item 2"', description: 'checklist items separated by |, each given an id' },
    },
    run: (flags) =>
      fileSettingsAdmin.addMilestoneTemplate({
        organizationId: required(flags, 'org'),
        key: required(flags, 'key'),
        label: required(flags, 'label'),
        order: optional(flags, 'order'),
        mortgageTypes: optional(flags, 'mortgage-types'),
        dueOffsetDays: optional(flags, 'due-offset-days'),
        checklist: optional(flags, 'checklist'),
      }),
  },
  'milestone deactivate': {
    summary: "Deactivate a milestone template; files' milestone rows with progress stay.",
    prints: 'the template, "is_active": false',
    options: { org: organizationOption, key: { ...settingKeyOption, description: 'the milestone template key' } },
    run: (flags) => fileSettingsAdmin.removeMilestoneTemplate(required(flags, 'org'), required(flags, 'key')),
  },
  'document-template create': {
    summary: 'Add a required-document template: new files get a requirement for it.',
    prints: '{"key", "label", "per_borrower", "is_active": true}',
    options: {
      org: organizationOption,
      key: settingKeyOption,
      label: settingLabelOption,
      'per-borrower': { type: 'boolean', description: 'one requirement per borrower (default one for the file)' },
    },
    run: (flags) =>
      fileSettingsAdmin.addDocumentTemplate(required(flags, 'org'), required(flags, 'key'), required(flags, 'label'), flags['per-borrower'] === true),
  },
  'document-template deactivate': {
    summary: "Deactivate a required-document template; files' requirements stay.",
    prints: '{"key", "label", "per_borrower", "is_active": false}',
    options: { org: organizationOption, key: { ...settingKeyOption, description: 'the document template key' } },
    run: (flags) => fileSettingsAdmin.removeDocumentTemplate(required(flags, 'org'), required(flags, 'key')),
  },
  'document add': {
    summary: "Record a document of a mortgage file, as the app's upload would (the API only reads documents).",
    prints:
      'the document {"id", "organization_id", "mortgage_file_id", "name", "document_type", "content_type", "size_bytes", "requirement_id", "borrower_id", "uploaded_by": null, "created_at", "updated_at"}',
    options: {
      file: { type: 'string', value: 'FILE_ID', required: true, description: 'the mortgage file id (the organization is found from it)' },
      name: { type: 'string', value: 'NAME', required: true, description: "the document's name, e.g. its file name (at most 200 characters)" },
      type: { type: 'string', value: 'DOCUMENT_TYPE', required: true, description: 'the document type, usually a required-document template key such as id_card' },
      requirement: { type: 'string', value: 'REQUIREMENT_ID', description: "a requirement of this file it answers; its borrower's when --borrower is omitted" },
      borrower: { type: 'string', value: 'BORROWER_ID', description: 'a borrower of this file it belongs to' },
      'content-type': { type: 'string', value: 'TYPE', description: 'the media type (default application/pdf)' },
      'size-bytes': { type: 'string', value: 'N', description: 'the size in bytes, an integer >= 0 (default 0)' },
    },
    run: (flags) =>
      documentAdmin.addDocument({
        fileId: required(flags, 'file'),
        name: required(flags, 'name'),
        documentType: required(flags, 'type'),
        requirementId: optional(flags, 'requirement'),
        borrowerId: optional(flags, 'borrower'),
        contentType: optional(flags, 'content-type'),
        sizeBytes: optional(flags, 'size-bytes'),
      }),
  },
  'intake create': {
    summary: 'Create a lead-intake endpoint; the token (and signing secret) are shown only here.',
    prints: '{"intake_id", "token", "url", "direct_url"} plus "signing_secret" with --signing',
    options: {
      org: organizationOption,
      name: { type: 'string', value: 'NAME', required: true, description: "the endpoint's name" },
      source: { type: 'string', value: 'S', description: "the leads' source when the request names none" },
      status: { type: 'string', value: 'S', description: 'the lead status new leads get' },
      assignee: { type: 'string', value: 'USER', description: 'the user new leads are assigned to' },
      tags: { type: 'string', value: 'a,b', description: 'tags put on new leads' },
      'duplicate-mode': { type: 'string', value: 'flag|reuse|none', description: 'what a duplicate phone or email does (default flag)' },
      'ip-allow': { type: 'string', value: 'CIDR[,CIDR...]', description: 'client addresses or CIDR ranges allowed (checked on the direct address)' },
      signing: { type: 'boolean', description: 'require signed requests and print the signing secret' },
      honeypot: { type: 'string', value: 'FIELD', description: 'a form field that, when filled, marks the submission as spam' },
      mapping: { type: 'string', value: 'JSON', description: 'form field key or label to lead field, e.g. {"Your budget": "required_amount"}' },
    },
    run: (flags) => intakeAdmin.createIntake(flags),
  },
  'intake rotate-token': {
    summary: "Replace an intake endpoint's token; the old token stops working at once.",
    prints: '{"intake_id", "token", "url", "direct_url"}',
    options: { intake: intakeOption },
    run: (flags) => intakeAdmin.rotateIntakeToken(flags),
  },
  'intake disable': {
    summary: 'Disable an intake endpoint.',
    prints: '{"intake_id", "is_active": false}',
    options: { intake: intakeOption },
    run: (flags) => intakeAdmin.disableIntake(flags),
  },
  'intake log': {
    summary: "An intake endpoint's request log, newest first.",
    prints: '{"data": [...]}',
    options: { intake: intakeOption, limit: { type: 'string', value: 'N', description: 'only the newest N entries (default: the whole log)' } },
    run: (flags) => intakeAdmin.intakeLog(flags),
  },
  'customer backfill-file-rows': {
    summary:
      "Write the customers' rows of an organization's existing mortgage files (organizations created before them); until then a customer's delete also asks the organization's file index. Safe to run again.",
    prints: '{"organization_id", "files", "rows_written"}',
    options: { org: organizationOption },
    run: (flags) => customerAdmin.backfillCustomerFileRows(required(flags, 'org')),
  },
  'task backfill-link-rows': {
    summary:
      "Write the rows of an organization's existing tasks in the records they name (organizations created before them); until then a lead's, customer's, task's or file's delete also asks the organization's task index. Safe to run again.",
    prints: '{"organization_id", "tasks", "rows_written"}',
    options: { org: organizationOption },
    run: (flags) => taskAdmin.backfillTaskLinkRows(required(flags, 'org')),
  },
  'lead backfill-markers': {
    summary:
      "Write the duplicate-check markers of an organization's existing leads (organizations created before them); until then intake checks duplicates on the phone and email indexes. Safe to run again.",
    prints: '{"organization_id", "leads", "markers_written", "markers_kept"}',
    options: { org: organizationOption },
    run: (flags) => leadAdmin.backfillContactMarkers(required(flags, 'org')),
  },
  notifications: {
    summary: "A user's in-app notifications, newest first.",
    prints: '{"data": [...]}',
    options: { user: { type: 'string', value: 'USER', required: true, description: 'the user id' } },
    run: (flags) => admin.userNotifications(required(flags, 'user')),
  },
  seed: {
    summary: 'Create a demo organization with an admin user, an admin key and an intake endpoint.',
    prints: '{"organization_id", "user_id", "key_id", "api_key", "intake_id", "intake_token", "intake_url", "intake_direct_url"}',
    options: {},
    run: async (flags) => {
      // Checked first, so a missing --aws setting leaves nothing half-created.
      await intakeAdmin.addressBuilder(flags.aws === true);
      const { organization_id } = await admin.createOrganization('Demo Mortgage Advisors');
      const { user_id } = await admin.createUser(organization_id, 'Demo Admin', 'admin@demo.example', 'admin');
      const { key_id, api_key } = await admin.createKey(organization_id, user_id, 'admin');
      const intake = await intakeAdmin.createIntake({ org: organization_id, name: 'Website form', source: 'website', aws: flags.aws });
      return {
        organization_id,
        user_id,
        key_id,
        api_key,
        intake_id: intake.intake_id,
        intake_token: intake.token,
        intake_url: intake.url,
        intake_direct_url: intake.direct_url,
      };
    },
  },
};

/** A command's own options followed by the ones every command takes. */
export function optionsOf(command: CommandSpec): Record<string, OptionSpec> {
  return { ...command.options, ...GLOBAL_OPTIONS };
}
