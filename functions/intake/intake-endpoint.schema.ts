import * as z from 'zod';
import { isMappingTarget, normalizeFieldName } from './field-names';
import { parseAllowEntry } from './ip-allow-list';

/** Spec §2 "Lead intake endpoint" and §4 duplicate handling. */
export const DUPLICATE_MODES = ['flag', 'reuse', 'none'] as const;
export type DuplicateMode = (typeof DUPLICATE_MODES)[number];

export const MAX_INTAKE_ENDPOINTS_PER_ORGANIZATION = 20;

const mappingSchema = z
  .record(
    z.string().trim().min(1).max(500),
    z.string().refine(isMappingTarget, { message: 'is not a mapping target (spec §4: a lead field, custom_fields.<name> or ignore)' }),
  )
  .refine((mapping) => Object.keys(mapping).length <= 200, { message: 'at most 200 entries' });

/** What an endpoint is configured with; stored on the endpoint and copied onto its token item. */
export const intakeEndpointConfigSchema = z.object({
  name: z.string().trim().min(1).max(200),
  is_active: z.boolean(),
  default_source: z.string().trim().min(1).max(200).nullable(),
  /** A lead status key of the organization; null means the organization's default status. */
  status: z.string().min(1).max(64).nullable(),
  assigned_to: z.uuid().nullable(),
  tags: z.array(z.string().trim().min(1).max(100)).max(50),
  duplicate_mode: z.enum(DUPLICATE_MODES),
  ip_allow: z
    .array(z.string())
    .max(100)
    .refine((entries) => entries.every((entry) => parseAllowEntry(entry) !== undefined), {
      message: 'every entry must be an IPv4 or IPv6 address or CIDR range',
    }),
  /** The whole signing secret: HMAC verification needs it, so it is kept (and never shown again). */
  signing_secret: z.string().min(16).nullable(),
  honeypot_field: z.string().trim().min(1).max(200).nullable(),
  mapping: mappingSchema,
});
export type IntakeEndpointConfig = z.infer<typeof intakeEndpointConfigSchema>;

/** The endpoint's mapping with keys normalized like built-in names, for matching by key or label. */
export function normalizedMapping(mapping: Record<string, string>): Map<string, string> {
  const normalized = new Map<string, string>();
  for (const [key, target] of Object.entries(mapping)) {
    const name = normalizeFieldName(key);
    if (!normalized.has(name)) normalized.set(name, target);
  }
  return normalized;
}
