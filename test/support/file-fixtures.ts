import type { TestRuntime } from './test-runtime';

/** What the file sub-resource tests share: a tenant, a missing id, a new file, a colleague. */
export type Tenant = Awaited<ReturnType<TestRuntime['organization']>>;

export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

export interface Colleague {
  userId: string;
  email: string;
  /** Only when `permissions` were given: a key of the colleague's own. */
  apiKey?: string;
}

export function fileFixtures(runtime: TestRuntime) {
  return {
    /** POST /mortgage-files, expected to answer 201; the file as answered. */
    async newFile(tenant: Tenant, body: Record<string, unknown> = {}): Promise<any> {
      const response = await runtime.request('POST', '/mortgage-files', { key: tenant.apiKey, body });
      expect(response.status).toBe(201);
      return response.body;
    },
    /** A second user of the tenant's organization, with a key of its own when `permissions` are given. */
    async colleague(tenant: Tenant, options: { name?: string; permissions?: string } = {}): Promise<Colleague> {
      const email = `c-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
      const { user_id } = await runtime.admin<{ user_id: string }>('user', 'create', '--org', tenant.organizationId, '--name', options.name ?? 'Colleague', '--email', email);
      if (!options.permissions) return { userId: user_id, email };
      const { api_key } = await runtime.admin<{ api_key: string }>('key', 'create', '--org', tenant.organizationId, '--user', user_id, '--permissions', options.permissions);
      return { userId: user_id, email, apiKey: api_key };
    },
  };
}
