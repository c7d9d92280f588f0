import { newId } from '../../shared/ids';
import { ApiError } from '../../shared/http/errors';
import { getLogger } from '../../shared/logger';
import { retryOnVersionConflict, VersionConflict } from '../../shared/resources/write-batch';
import { getTableName } from '../../shared/storage/dynamo-client';
import type { ItemKey } from '../../shared/storage/keys';
import { batchGetAll, itemWithKey } from '../../shared/storage/paginated-requests';
import { TransactionConditionFailed, type TransactItem } from '../../shared/storage/transactions';
import type { WriteContext } from '../../shared/write-context';
import { createLead } from '../leads/create-lead';
import { InvalidLeadSourceError } from '../leads/lead-source-reference';
import type { CreateLeadInput } from '../leads/lead.schema';
import { noteLeadInquiry } from '../leads/note-lead-inquiry';
import { InvalidBodyError, parseBody } from './body-parser';
import { UnsupportedCharsetError } from './charset';
import { duplicateLookup, resolveDuplicate, type DuplicateLead } from './duplicate-lead';
import { isHoneypotHit, mapFields, MAX_DETAILS_NOTE } from './field-mapping';
import { cutText } from './field-values';
import {
  countIntakeRequest,
  findIntakeToken,
  hashIntakeToken,
  INTAKE_RATE_LIMIT,
  INTAKE_RATE_WINDOW_MS,
  looksLikeToken,
  type IntakeTokenRecord,
} from './intake-endpoint.repository';
import { buildLeadInput, inquiryNote, storableLeadInput } from './intake-lead-input';
import { rejections } from './intake-rejection';
import { completedReplayPuts, replayKeys, replayStateOf, type ReplayState, type StoredResult } from './intake-replay.repository';
import type { IntakeRequest } from './intake-request';
import { checkSignature } from './intake-signature';
import { isAddressAllowed } from './ip-allow-list';
import type { RequestTrace } from './request-trace';
import { flattenFields } from './submitted-fields';

/** Spec §4 "One lead per request, up to 64KB". */
export const MAX_BODY_BYTES = 64 * 1024;

export interface IntakeResult {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * One intake request, from the address to the answer of spec §4's response table. Protection
 * first (endpoint, rate, subscription, IP, size, signature), then the body, the honeypot, the
 * mapping, the replay claim and the lead. Refusals are thrown as IntakeRejection.
 */
export async function receiveIntakeRequest(request: IntakeRequest, trace: RequestTrace): Promise<IntakeResult> {
  const token = request.token && looksLikeToken(request.token) ? request.token : undefined;
  if (request.method !== 'POST') {
    if (token) trace.endpoint = await findIntakeToken(hashIntakeToken(token));
    throw rejections.methodNotAllowed();
  }
  if (!token) throw rejections.notFound('endpoint_not_found');

  const endpoint = await countIntakeRequest(hashIntakeToken(token), request.receivedAt);
  if (!endpoint) throw rejections.notFound('endpoint_not_found');
  trace.endpoint = endpoint;
  checkProtection(endpoint, request);

  const { config } = endpoint;
  let fields;
  try {
    const parsed = await parseBody(request.body, request.contentType ?? undefined);
    fields = flattenFields(parsed.tree, parsed.format).fields;
  } catch (error) {
    if (error instanceof InvalidBodyError) throw rejections.invalidBody(error.message);
    if (error instanceof UnsupportedCharsetError) throw rejections.unsupportedCharset(error.message);
    throw error;
  }
  if (isHoneypotHit(fields, config.honeypot_field)) {
    // Looks accepted to the bot; nothing is kept.
    trace.outcome = 'discarded';
    trace.reason = 'honeypot';
    return { status: 200, body: { ok: true } };
  }

  const mapped = mapFields(fields, config);
  if (!mapped.lead.phone && !mapped.lead.email) {
    const unreadable = mapped.unreadableContact.length > 0 ? `; not a valid phone or email: ${mapped.unreadableContact.join(', ')}` : '';
    throw rejections.contactMissing(`The submission needs a phone number or an email address${unreadable}`);
  }
  const input = storableLeadInput(buildLeadInput(mapped, config));
  return acceptSubmission(endpoint, request, input, trace);
}

function checkProtection(endpoint: IntakeTokenRecord, request: IntakeRequest): void {
  const { config } = endpoint;
  if (!config.is_active) throw rejections.notFound('endpoint_disabled');
  if ((endpoint.rate_count ?? 0) > INTAKE_RATE_LIMIT) {
    const opensAt = (endpoint.rate_window_start ?? request.receivedAt) + INTAKE_RATE_WINDOW_MS;
    const wait = Math.max(1, Math.ceil((opensAt - request.receivedAt) / 1000));
    throw rejections.rateLimited(wait, new Date(opensAt), `At most ${INTAKE_RATE_LIMIT} requests per 10 minutes per endpoint`);
  }
  if (endpoint.subscription_status !== 'active') throw rejections.subscriptionInactive();
  if (config.ip_allow.length > 0) {
    // Behind the proxy the source address is the proxy's, so an allow-list can only be honoured directly.
    if (request.address !== 'direct') throw rejections.ipRestrictedUseDirect();
    if (!request.sourceIp || !isAddressAllowed(request.sourceIp, config.ip_allow)) throw rejections.ipNotAllowed();
  }
  if (request.body.length > MAX_BODY_BYTES) throw rejections.bodyTooLarge(MAX_BODY_BYTES);
  if (config.signing_secret) {
    const check = checkSignature(
      config.signing_secret,
      request.headers['x-svc-timestamp'],
      request.headers['x-svc-signature'],
      request.body,
      request.receivedAt,
    );
    if (check === 'signature_missing') throw rejections.signature(check, 'X-Svc-Timestamp and X-Svc-Signature are required');
    if (check === 'signature_expired') throw rejections.signature(check, 'X-Svc-Timestamp is not within 5 minutes of server time');
    if (check === 'signature_invalid') throw rejections.signature(check, 'X-Svc-Signature does not match the body');
  }
}

/**
 * Reads the replay records and the duplicate markers in one BatchGetItem, then creates (or, in
 * `reuse` mode, notes on) the lead, with the completed replay records and the log entry in the
 * same transaction. The lead's transaction refuses to write over a live replay record, so when an
 * identical request commits first this one answers with its stored result.
 */
async function acceptSubmission(endpoint: IntakeTokenRecord, request: IntakeRequest, input: CreateLeadInput, trace: RequestTrace): Promise<IntakeResult> {
  return retryOnVersionConflict(() => acceptSubmissionOnce(endpoint, request, input, trace), { what: 'The lead' });
}

async function acceptSubmissionOnce(endpoint: IntakeTokenRecord, request: IntakeRequest, input: CreateLeadInput, trace: RequestTrace): Promise<IntakeResult> {
  const { config } = endpoint;
  const records = replayKeys(endpoint.intake_id, request.body, request.headers);
  const lookup = config.duplicate_mode === 'none' ? undefined : duplicateLookup(endpoint.organization_id, input);
  const read = await batchGetAll([...records, ...(lookup?.keys ?? [])], { consistentRead: true });
  const replay = replayStateOf(records, read);
  if (replay.kind !== 'new') return answerReplay(replay, trace);
  const duplicate = lookup ? await resolveDuplicate(endpoint.organization_id, lookup, read) : undefined;

  const context: WriteContext = { organizationId: endpoint.organization_id, userId: null };
  const requestId = newId();
  const resultItems = (result: StoredResult) => [
    ...completedReplayPuts(records, requestId, request.receivedAt, result),
    { Put: { TableName: getTableName(), Item: trace.takeLogItem(200)! } },
  ];
  try {
    if (duplicate && config.duplicate_mode === 'reuse') {
      const result: StoredResult = { status: 200, body: { ok: true, lead_id: duplicate.id, created: false } };
      trace.outcome = 'accepted';
      trace.leadId = duplicate.id;
      trace.created = false;
      const noted = await noteLeadInquiry(
        context,
        duplicate.id,
        { note: inquiryNote(input, config.name, new Date(request.receivedAt)), intakeEndpointId: endpoint.intake_id },
        resultItems(result),
      );
      if (noted) return result;
      trace.resetLog(); // the lead was deleted in the meantime: a new lead is created instead
    }
    const flagged = config.duplicate_mode === 'flag' ? duplicate : undefined;
    const leadId = newId();
    const body: Record<string, unknown> = { ok: true, lead_id: leadId, created: true };
    if (flagged) body.duplicate_of = { id: flagged.id, lead_number: flagged.lead_number };
    trace.outcome = 'accepted';
    trace.leadId = leadId;
    trace.created = true;
    trace.duplicateOf = flagged?.id ?? null;
    // The markers as read: a lead with the same contact created meanwhile makes this one check again.
    const markersAsRead = lookup ? (key: ItemKey) => itemWithKey(read, key) : undefined;
    await createIntakeLead(context, endpoint, input, flagged, leadId, resultItems({ status: 200, body }), markersAsRead);
    return { status: 200, body };
  } catch (error) {
    trace.resetLog(); // nothing of the failed write was saved, the log entry included
    if (error instanceof TransactionConditionFailed) {
      // An identical request's transaction committed first: its records are there now.
      const settled = replayStateOf(records, await batchGetAll(records, { consistentRead: true }));
      if (settled.kind !== 'new') return answerReplay(settled, trace);
      // Otherwise a lead with the same phone or email committed first: check for duplicates again.
      throw new VersionConflict();
    }
    throw error;
  }
}

function answerReplay(replay: Exclude<ReplayState, { kind: 'new' }>, trace: RequestTrace): IntakeResult {
  if (replay.kind === 'processing') throw rejections.inProgress();
  trace.outcome = 'replayed';
  trace.leadId = typeof replay.result.body.lead_id === 'string' ? replay.result.body.lead_id : null;
  trace.created = false;
  trace.duplicateOf = null;
  return { ...replay.result, headers: { 'Idempotent-Replayed': 'true' } };
}

/**
 * createLead refuses what the sender cannot be blamed for: a status deactivated after the endpoint
 * was configured (the organization's default applies), or a source that looks like a record id but
 * is none of the organization's (the endpoint's default source applies; the sent value is kept in
 * the details note).
 */
async function createIntakeLead(
  context: WriteContext,
  endpoint: IntakeTokenRecord,
  input: CreateLeadInput,
  duplicate: DuplicateLead | undefined,
  leadId: string,
  extraItems: TransactItem[],
  markersAsRead?: (key: ItemKey) => Record<string, unknown> | undefined,
) {
  const options = { intakeEndpointId: endpoint.intake_id, possibleDuplicateOf: duplicate?.id ?? null, leadId, extraItems, markersAsRead };
  let attempt: CreateLeadInput = input;
  for (let remaining = 2; ; remaining--) {
    try {
      return await createLead(context, attempt, options);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400 || remaining === 0) throw error;
      if (error instanceof InvalidLeadSourceError && attempt.source) {
        const fallback = attempt.source === endpoint.config.default_source ? null : endpoint.config.default_source;
        const kept = `source: ${attempt.source}`;
        attempt = {
          ...attempt,
          source: fallback,
          details_note: cutText(attempt.details_note ? `${attempt.details_note}\n${kept}` : kept, MAX_DETAILS_NOTE),
        };
      } else if (error.options.code === '23514' && attempt.status !== undefined) {
        getLogger().warn('intake endpoint status is no longer defined; using the default status', { intake_id: endpoint.intake_id });
        const { status: _unused, ...withoutStatus } = attempt;
        attempt = withoutStatus;
      } else {
        throw error;
      }
    }
  }
}
