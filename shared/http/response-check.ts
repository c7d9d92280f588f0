import type * as z from 'zod';
import { unwrapSchema as unwrap } from '../validation/schema-shape';

/**
 * Where an answer leaves its documented schema: a value of the wrong type, or a field the schema
 * does not name (at any depth). Used by the local runtime under test (`CHECK_RESPONSES=1`), so every
 * answer of every test is checked against the operation's OpenAPI schema; Lambda never runs it.
 */
export function responseDeviations(schema: z.ZodType, body: unknown): string[] {
  const parsed = schema.safeParse(body);
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
  collectUndocumented(schema, body, '', problems);
  return problems;
}

function collectUndocumented(schema: z.ZodType, value: unknown, path: string, problems: string[]): void {
  const inner = unwrap(schema);
  if (value === null || typeof value !== 'object') return;
  if (inner.def.type === 'array' && Array.isArray(value) && inner.def.element) {
    value.forEach((item, index) => collectUndocumented(inner.def.element!, item, `${path}[${index}]`, problems));
    return;
  }
  if (inner.def.type !== 'object' || !inner.def.shape || Array.isArray(value)) return;
  // An open object (`catchall`) documents every key.
  if (inner.def.catchall && (inner.def.catchall as unknown as { def: { type: string } }).def.type !== 'never') return;
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const fieldSchema = inner.def.shape[key];
    if (!fieldSchema) problems.push(`${path ? `${path}.` : ''}${key}: not documented`);
    else collectUndocumented(fieldSchema, field, path ? `${path}.${key}` : key, problems);
  }
}
