import type * as z from 'zod';
import { unwrapSchema } from './schema-shape';

/**
 * resources.md §1 "Strings": trimmed; an empty string in an optional field is stored as `null`.
 * Text fields do both themselves. A field whose schema takes no such string as sent (a date, an id,
 * an enum value, `"ILS"`) would refuse it; a body that failed validation is tried once more with
 * those values taken as meant: blank → `null` where the field takes `null` (its default applies,
 * or an update clears it), and a value with blanks around it → trimmed where that is valid. Only
 * values the field itself refuses are changed, at any depth of the schema's objects and arrays.
 */
export function withBlankStringsResolved(schema: z.ZodType, value: unknown): unknown {
  const inner = unwrapSchema(schema);
  if (Array.isArray(value)) {
    return inner.def.type === 'array' && inner.def.element ? value.map((item) => resolvedField(inner.def.element!, item)) : value;
  }
  if (value === null || typeof value !== 'object' || inner.def.type !== 'object' || !inner.def.shape) return value;
  const resolved: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const fieldSchema = inner.def.shape[key];
    resolved[key] = fieldSchema ? resolvedField(fieldSchema, field) : field;
  }
  return resolved;
}

function resolvedField(schema: z.ZodType, value: unknown): unknown {
  if (typeof value !== 'string') return withBlankStringsResolved(schema, value);
  if (schema.safeParse(value).success) return value;
  // resources.md §1 "Booleans": JSON true/false only; no string is one, blank or not.
  if (unwrapSchema(schema).def.type === 'boolean') return value;
  const trimmed = value.trim();
  if (trimmed === '') return schema.safeParse(null).success ? null : value;
  return trimmed !== value && schema.safeParse(trimmed).success ? trimmed : value;
}
