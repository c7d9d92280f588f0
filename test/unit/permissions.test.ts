import { actionForMethod, canOverrideLockedNotes, isAllowed, resourceForPath } from '../../shared/auth/permissions';

describe('spec §5 permissions', () => {
  test('the resource is the first path segment; nested file paths check mortgage-files', () => {
    expect(resourceForPath('/leads/123/status')).toBe('leads');
    expect(resourceForPath('/mortgage-files/1/borrowers/2')).toBe('mortgage-files');
  });
  test('GET is read, POST/PUT/PATCH are write, DELETE is delete', () => {
    expect(actionForMethod('GET')).toBe('read');
    expect(actionForMethod('POST')).toBe('write');
    expect(actionForMethod('PUT')).toBe('write');
    expect(actionForMethod('PATCH')).toBe('write');
    expect(actionForMethod('DELETE')).toBe('delete');
  });
  test('admin and * allow everything, webhooks included', () => {
    for (const value of ['admin', '*']) {
      expect(isAllowed([value], 'leads', 'delete')).toBe(true);
      expect(isAllowed([value], 'webhooks', 'write')).toBe(true);
    }
  });
  test('<resource>:* allows every action on that resource only', () => {
    expect(isAllowed(['leads:*'], 'leads', 'delete')).toBe(true);
    expect(isAllowed(['leads:*'], 'customers', 'read')).toBe(false);
  });
  test('<resource>:<action> allows one action', () => {
    expect(isAllowed(['leads:read'], 'leads', 'read')).toBe(true);
    expect(isAllowed(['leads:read'], 'leads', 'write')).toBe(false);
    expect(isAllowed(['leads:delete'], 'leads', 'delete')).toBe(true);
  });
  test('general read reads every resource; general write creates and updates but never deletes', () => {
    expect(isAllowed(['read'], 'customers', 'read')).toBe(true);
    expect(isAllowed(['read'], 'customers', 'write')).toBe(false);
    expect(isAllowed(['write'], 'leads', 'write')).toBe(true);
    expect(isAllowed(['write'], 'leads', 'delete')).toBe(false);
    expect(isAllowed(['read', 'write'], 'leads', 'delete')).toBe(false);
  });
  test('webhook management needs an explicit webhooks permission; general read/write do not include it', () => {
    expect(isAllowed(['read', 'write'], 'webhooks', 'read')).toBe(false);
    expect(isAllowed(['read', 'write'], 'webhooks', 'write')).toBe(false);
    expect(isAllowed(['webhooks:read'], 'webhooks', 'read')).toBe(true);
    expect(isAllowed(['webhooks:*'], 'webhooks', 'delete')).toBe(true);
  });
  test('locked notes: only admin, * or mortgage-files:* override', () => {
    expect(canOverrideLockedNotes(['mortgage-files:*'])).toBe(true);
    expect(canOverrideLockedNotes(['mortgage-files:write'])).toBe(false);
    expect(canOverrideLockedNotes(['*'])).toBe(true);
  });
});
