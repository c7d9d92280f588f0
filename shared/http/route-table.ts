/**
 * The API's route table: which function serves which path. CDK wires exactly these paths into
 * API Gateway (one `ANY` route per path, so an unsupported method reaches the function and gets
 * a 405 with `Allow`), and the local runtime dispatches with the same table.
 */
export type FunctionGroup = 'leads' | 'customers' | 'contacts' | 'mortgage-files' | 'tasks' | 'lists' | 'webhooks' | 'api-fallback';

export interface RouteEntry {
  group: FunctionGroup;
  path: string;
}

export const API_ROUTES: RouteEntry[] = [
  { group: 'leads', path: '/leads' },
  { group: 'leads', path: '/leads/statuses' },
  { group: 'leads', path: '/leads/{id}' },
  { group: 'leads', path: '/leads/{id}/status' },
  { group: 'customers', path: '/customers' },
  { group: 'customers', path: '/customers/{id}' },
  { group: 'customers', path: '/customers/{id}/mortgage-files' },
  { group: 'contacts', path: '/contacts' },
  { group: 'contacts', path: '/contacts/{id}' },
  { group: 'mortgage-files', path: '/mortgage-files' },
  { group: 'mortgage-files', path: '/mortgage-files/statuses' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/status' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/status-history' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/borrowers' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/borrowers/{borrowerId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/incomes' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/incomes/{incomeId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/bank-accounts' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/bank-accounts/{accountId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/obligations' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/obligations/{obligationId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/tasks' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/tasks/{taskId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/notes' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/notes/{noteId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/timeline' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/required-documents' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/document-statuses' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/document-statuses/{documentStatusId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/documents' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/documents/{documentId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/signatures' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/signatures/{signatureId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/generated-documents' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/generated-documents/{generatedId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/calculator-mixes' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/calculator-mixes/{mixId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/analyses' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/analyses/{analysisId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/watchers' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/watchers/{watcherId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/contacts' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/contacts/{linkId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/custom-fields' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/charges' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/charges/{chargeId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/payments' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/payments/{paymentId}' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/milestones' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/milestones/progress' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/reminders' },
  { group: 'mortgage-files', path: '/mortgage-files/{id}/reminders/{reminderId}' },
  { group: 'tasks', path: '/tasks' },
  { group: 'tasks', path: '/tasks/{id}' },
  { group: 'lists', path: '/lists' },
  { group: 'lists', path: '/lists/{name}' },
  { group: 'webhooks', path: '/webhooks' },
  { group: 'webhooks', path: '/webhooks/events' },
  { group: 'webhooks', path: '/webhooks/{id}' },
  { group: 'webhooks', path: '/webhooks/{id}/test' },
  { group: 'webhooks', path: '/webhooks/{id}/rotate-secret' },
  { group: 'webhooks', path: '/webhooks/{id}/deliveries' },
  { group: 'webhooks', path: '/webhooks/{id}/deliveries/{deliveryId}/redeliver' },
  { group: 'api-fallback', path: '/openapi.json' },
];

/** Paths no table route matches go to the fallback function (404 JSON). */
export const FALLBACK_GROUP: FunctionGroup = 'api-fallback';

export interface PathMatch {
  path: string;
  params: Record<string, string>;
}

function segments(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

/** Templates are few and fixed: each is split once per process, not on every request. */
const templateSegments = new Map<string, string[]>();
function segmentsOfTemplate(template: string): string[] {
  let parts = templateSegments.get(template);
  if (!parts) templateSegments.set(template, (parts = segments(template)));
  return parts;
}

/**
 * Matches a concrete path against templates. Literal segments win over parameters, as in API
 * Gateway (`/leads/statuses` before `/leads/{id}`).
 */
export function matchPath(templates: string[], rawPath: string): PathMatch | undefined {
  const actual = segments(rawPath);
  let best: { match: PathMatch; literals: number } | undefined;
  for (const template of templates) {
    const parts = segmentsOfTemplate(template);
    if (parts.length !== actual.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    let matched = true;
    for (let index = 0; index < parts.length; index++) {
      const part = parts[index];
      const value = actual[index];
      if (part.startsWith('{') && part.endsWith('}')) {
        params[part.slice(1, -1)] = safeDecode(value);
      } else if (part === value) {
        literals += 1;
      } else {
        matched = false;
        break;
      }
    }
    if (matched && (!best || literals > best.literals)) best = { match: { path: template, params }, literals };
  }
  return best?.match;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export function groupForPath(rawPath: string): FunctionGroup {
  const match = matchPath(
    API_ROUTES.map((route) => route.path),
    rawPath,
  );
  if (!match) return FALLBACK_GROUP;
  return API_ROUTES.find((route) => route.path === match.path)!.group;
}
