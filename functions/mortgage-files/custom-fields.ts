import * as z from 'zod';
import { badRequest, noUpdatableFields } from '../../shared/http/errors';
import { defineOperation, partialUpdateOperations, type Operation } from '../../shared/http/operation';
import { assertPrecondition, entityTag, joinedTagSource, versionOf, withVersion } from '../../shared/http/record-version';
import type { HttpResult } from '../../shared/http/response';
import { nowIso } from '../../shared/ids';
import { listCustomFields, type CustomFieldDefinition } from '../../shared/organizations/file-settings.repository';
import { writeContextOf } from '../../shared/write-context';
import type { StoredRecord } from '../../shared/resources/entity';
import { requireRecord, sameValue, versionedWrite } from '../../shared/resources/entity.repository';
import { retryOnVersionConflict, WriteBatch } from '../../shared/resources/write-batch';
import { getTableName } from '../../shared/storage/dynamo-client';
import { entityKeys } from '../../shared/storage/keys';
import { FREE_FORM_MAX_BYTES, MAX_AMOUNT, signedAmountSchema } from '../../shared/validation/bounded';
import { calendarDate, FREE_TEXT_MAX, listValue, text } from '../../shared/validation/fields';
import type { WriteContext } from '../../shared/write-context';
import { mortgageFileEntity, requireFileOfPath } from './mortgage-file.entity';

/**
 * resources.md §9.5: a file's custom-field values, addressed by the organization's `field_name`s.
 * The values live in the file item's `custom_fields` map (the file's *ro* field): a write is one
 * UpdateItem of that map conditional on the file's version (so the file's ETag moves, and If-Match
 * is judged against the file's ETag), made only when a value actually changes. No timeline row, no
 * event. Answers carry the file's ETag.
 */
type Value = string | number | boolean;

const valueSchema = z.union([z.string(), z.number(), z.boolean()]).nullable();

export const customFieldValueSchema = z
  .object({
    field_name: z.string(),
    label: z.string(),
    type: listValue('custom-field-types'),
    options: z.array(z.string()).nullable(),
    value: valueSchema,
  })
  .meta({ id: 'CustomFieldValue' });

export const customFieldValuesSchema = z.object({ data: z.array(customFieldValueSchema), count: z.number().int() }).meta({ id: 'CustomFieldValues' });

/** At most this many names in one request (an organization defines far fewer). */
const MAX_VALUES = 200;
/**
 * The stored values live in the file's own item, which DynamoDB caps at 400 KB with the file's
 * other fields: their JSON stays within this, else 400 (never the database's refusal as a 500).
 */
export const CUSTOM_FIELDS_MAX_BYTES = FREE_FORM_MAX_BYTES;

const setCustomFieldsSchema = z
  .object({
    values: z
      .record(z.string().max(64, 'field names are at most 64 characters'), z.unknown(), { error: 'must be an object {field_name: value}' })
      .refine((values) => Object.keys(values).length <= MAX_VALUES, `must name at most ${MAX_VALUES} fields`)
      .nullable()
      .optional()
      .describe('{field_name: value}; null clears a value; fields not named keep theirs'),
  })
  .meta({ id: 'SetCustomFieldValuesRequest' });

const signedAmount = signedAmountSchema(-MAX_AMOUNT);
const date = calendarDate();
const freeText = text(FREE_TEXT_MAX);

/** The value to store (`null` = clear), or the reason it is refused. */
function checkedValue(definition: CustomFieldDefinition, value: unknown): { value: Value | null } | { error: string } {
  if (value === null) return { value: null };
  switch (definition.type) {
    case 'text': {
      // The shared free-text rule: trimmed, at most 5,000 characters (an emoji is one).
      const checked = freeText.safeParse(value);
      if (!checked.success) return { error: checked.error.issues[0].message };
      return { value: checked.data === '' ? null : checked.data };
    }
    case 'number': {
      const parsed = signedAmount.safeParse(value);
      return parsed.success ? { value: parsed.data } : { error: parsed.error.issues[0]?.message ?? 'must be a number' };
    }
    // Strings are trimmed, and blank is no value (resources.md §1 "Strings").
    case 'date': {
      if (typeof value !== 'string') return { error: 'must be a date YYYY-MM-DD' };
      const trimmed = value.trim();
      if (trimmed === '') return { value: null };
      return date.safeParse(trimmed).success ? { value: trimmed } : { error: 'must be a date YYYY-MM-DD (a real calendar day)' };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { error: 'must be true or false' };
    case 'select': {
      const trimmed = typeof value === 'string' ? value.trim() : undefined;
      if (trimmed === '') return { value: null };
      return trimmed !== undefined && (definition.options ?? []).includes(trimmed) ? { value: trimmed } : { error: `must be one of ${(definition.options ?? []).join(', ')}` };
    }
    default:
      return { error: 'has an unknown type' };
  }
}

const storedValues = (file: StoredRecord): Record<string, Value> => ({ ...((file.custom_fields as Record<string, Value> | null) ?? {}) });

/** What the answer shows: every active definition in creation order, with the file's value or `null`. */
function shownFields(file: StoredRecord, definitions: CustomFieldDefinition[]) {
  const values = storedValues(file);
  return definitions
    .filter((definition) => definition.is_active)
    .map((definition) => ({
      field_name: definition.field_name,
      label: definition.label,
      type: definition.type,
      options: definition.type === 'select' ? definition.options : null,
      value: Object.hasOwn(values, definition.field_name) ? values[definition.field_name] : null,
    }));
}

/**
 * The answer's ETag stands for what it shows: the file's version (its values) and the definitions
 * listed, so a definition added or deactivated changes the tag as it changes the answer.
 */
const tagOf = (file: StoredRecord, shown: ReturnType<typeof shownFields>) =>
  joinedTagSource(versionOf(file) ?? 0, shown.map(({ value: _value, ...definition }) => definition));

function answer(file: StoredRecord, definitions: CustomFieldDefinition[]): HttpResult {
  const data = shownFields(file, definitions);
  return { statusCode: 200, body: { data, count: data.length }, headers: { ETag: entityTag(file.id, tagOf(file, data)) } };
}

/** The file's values after the request, or a 400 naming the first refused field (nothing is written then). */
function nextValues(current: Record<string, Value>, input: Record<string, unknown>, definitions: CustomFieldDefinition[]): Record<string, Value> {
  const byName = new Map(definitions.map((definition) => [definition.field_name, definition]));
  const next = { ...current };
  for (const [name, raw] of Object.entries(input)) {
    const definition = byName.get(name);
    if (!definition || !definition.is_active) throw badRequest('Validation failed', { details: `values.${name}: not an active custom field of the organization` });
    const checked = checkedValue(definition, raw);
    if ('error' in checked) throw badRequest('Validation failed', { details: `values.${name}: ${checked.error}` });
    if (checked.value === null) delete next[name];
    else next[name] = checked.value;
  }
  return next;
}

async function setValues(context: WriteContext, fileId: string, input: Record<string, unknown>): Promise<HttpResult> {
  return retryOnVersionConflict(async () => {
    const [file, definitions] = await Promise.all([requireRecord(mortgageFileEntity, context.organizationId, fileId), listCustomFields(context.organizationId)]);
    const seenVersion = versionOf(file) ?? 0;
    assertPrecondition(context.ifMatch, file, tagOf(file, shownFields(file, definitions)));
    const current = storedValues(file);
    const next = nextValues(current, input, definitions);
    if (sameValue(current, next)) return answer(file, definitions);
    const bytes = Buffer.byteLength(JSON.stringify(next));
    if (bytes > CUSTOM_FIELDS_MAX_BYTES) {
      throw badRequest('Validation failed', { details: `values: the file's custom field values would take ${bytes} bytes; at most ${CUSTOM_FIELDS_MAX_BYTES}` });
    }
    const { onConditionFailed, ExpressionAttributeNames, ExpressionAttributeValues, ConditionExpression } = versionedWrite(context, seenVersion);
    const updatedAt = nowIso();
    const batch = new WriteBatch().add(
      {
        Update: {
          TableName: getTableName(),
          Key: entityKeys.record(mortgageFileEntity.type, context.organizationId, fileId),
          UpdateExpression: 'SET custom_fields = :values, updated_at = :now, #version = :next',
          ConditionExpression,
          ExpressionAttributeNames,
          ExpressionAttributeValues: { ...ExpressionAttributeValues, ':values': next, ':now': updatedAt, ':next': seenVersion + 1 },
        },
      },
      onConditionFailed,
    );
    if (context.audit) batch.add(context.audit.entry(fileId, 200));
    await batch.commit();
    // The answer's ETag stands for the file at its new version.
    return answer(withVersion({ ...file, custom_fields: next, updated_at: updatedAt } as StoredRecord, seenVersion + 1), definitions);
    // Concurrent writes of one file's fields each retry on the fresh file.
  }, { attempts: 5 });
}

const path = `${mortgageFileEntity.path}/{id}/custom-fields`;

export const customFieldOperations: Operation[] = [
  defineOperation({
    method: 'GET',
    path,
    operationId: 'listMortgageFileCustomFields',
    summary: "The organization's active custom fields in creation order, each with this file's value (null when unset); the ETag is the file's",
    versioned: true,
    response: { status: 200, description: 'Custom fields and values (unpaged)', schema: customFieldValuesSchema },
    handle: async ({ auth, params }) => {
      const [file, definitions] = await Promise.all([requireRecord(mortgageFileEntity, auth.organizationId, params.id), listCustomFields(auth.organizationId, { activeOnly: true })]);
      return answer(file, definitions);
    },
  }),
  ...partialUpdateOperations(
    { put: 'replaceMortgageFileCustomFields', patch: 'updateMortgageFileCustomFields' },
    {
      path,
      summary:
        "Set custom-field values of a file by field_name (PUT and PATCH are the same): null clears, fields not named keep their values; one invalid value → 400 and nothing is written. If-Match takes the file's ETag",
      body: setCustomFieldsSchema,
      // If-Match and the answer's ETag are the file's.
      versioned: true,
      response: { status: 200, description: 'Custom fields and values, as GET', schema: customFieldValuesSchema },
      errors: [400, 404],
      requirePath: requireFileOfPath,
      handle: async (input) => {
        const values = (input.body as z.infer<typeof setCustomFieldsSchema>).values;
        if (!values || Object.keys(values).length === 0) {
          await requireFileOfPath({ params: input.params, organizationId: input.auth.organizationId });
          throw noUpdatableFields();
        }
        return setValues(writeContextOf(input), input.params.id, values);
      },
    },
  ),
];
