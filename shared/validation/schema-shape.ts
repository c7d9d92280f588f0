import type * as z from 'zod';

/** What a zod schema's definition exposes of its shape (zod v4 `def`). */
export interface SchemaDefinition {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
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
      // A pipe that takes anything in (a check of the raw value first) has its shape in its output.
      const input = current.def.in as unknown as { def: SchemaDefinition };
      current = (['unknown', 'any'].includes(input.def.type) && current.def.out ? current.def.out : current.def.in) as unknown as typeof current;
    } else {
      return current as unknown as z.ZodType & { def: SchemaDefinition };
    }
  }
}
