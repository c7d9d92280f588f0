import type * as z from 'zod';

/** What a zod schema's definition exposes of its shape (zod v4 `def`). */
export interface SchemaDefinition {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  catchall?: z.ZodType;
}

/** The schema under its optional, nullable, default, readonly and pipe-input wrappers. */
export function unwrapSchema(schema: z.ZodType): z.ZodType & { def: SchemaDefinition } {
  let current = schema as unknown as { def: SchemaDefinition };
  for (;;) {
    const { type } = current.def;
    if ((type === 'nullable' || type === 'optional' || type === 'default' || type === 'readonly') && current.def.innerType) {
      current = current.def.innerType as unknown as typeof current;
    } else if (type === 'pipe' && current.def.in) {
      current = current.def.in as unknown as typeof current;
    } else {
      return current as unknown as z.ZodType & { def: SchemaDefinition };
    }
  }
}
