import * as z from 'zod';

/*
 * Schemas of the shared response bodies, for the route declarations (the OpenAPI document and the
 * response check under test). They stay out of response.ts, whose helpers every function's request
 * pipeline loads: a schema there would put classic zod into the fallback, which declares none.
 */

/** The body of every delete (spec §4 common response shapes). */
export const deleteResultSchema = z.object({ success: z.boolean(), message: z.string() }).meta({ id: 'DeleteResult' });
