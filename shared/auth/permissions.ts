/**
 * Spec §5 Permissions: resource = first path segment, action from the method.
 */
export type Action = 'read' | 'write' | 'delete';

/** The API's resources: the first path segment of its routes (spec §5, resources.md §11). */
export const PERMISSION_RESOURCES = ['leads', 'customers', 'contacts', 'mortgage-files', 'tasks', 'lists', 'webhooks'] as const;

export const KNOWN_PERMISSION = new RegExp(`^(admin|\\*|read|write|(${PERMISSION_RESOURCES.join('|')}):(\\*|read|write|delete))$`);

export function actionForMethod(method: string): Action {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      return 'read';
    case 'DELETE':
      return 'delete';
    default:
      return 'write';
  }
}

export function resourceForPath(path: string): string {
  return path.split('/').find((segment) => segment.length > 0) ?? '';
}

/** Webhook management is never covered by the general `read`/`write` values. */
const EXPLICIT_ONLY_RESOURCES = new Set(['webhooks']);

export function isAllowed(permissions: readonly string[], resource: string, action: Action): boolean {
  const granted = new Set(permissions);
  if (granted.has('admin') || granted.has('*')) return true;
  if (granted.has(`${resource}:*`) || granted.has(`${resource}:${action}`)) return true;
  if (EXPLICIT_ONLY_RESOURCES.has(resource)) return false;
  if (action === 'read' && granted.has('read')) return true;
  if (action === 'write' && granted.has('write')) return true;
  return false;
}

/** Unlocking or editing a locked note (spec §3 Note). */
export function canOverrideLockedNotes(permissions: readonly string[]): boolean {
  return permissions.some((permission) => ['admin', '*', 'mortgage-files:*'].includes(permission));
}
