import { randomUUID } from 'node:crypto';
import type { TestResponse, TestRuntime } from '../support/test-runtime';

/** Helpers for the intake tests: endpoints made with the admin command line, posts over real HTTP. */
export interface IntakeEndpointCreated {
  intake_id: string;
  token: string;
  url: string;
  direct_url: string;
  signing_secret?: string;
}

export interface Tenant {
  organizationId: string;
  userId: string;
  keyId: string;
  apiKey: string;
}

export async function createIntake(runtime: TestRuntime, organizationId: string, ...options: string[]): Promise<IntakeEndpointCreated> {
  const name = options.includes('--name') ? [] : ['--name', 'Website form'];
  return runtime.admin<IntakeEndpointCreated>('intake', 'create', '--org', organizationId, ...name, ...options);
}

export interface PostOptions {
  headers?: Record<string, string>;
  method?: string;
  /** `direct` posts to {intake_direct_url}/<token>, `proxied` to {intake_url}/hooks/leads/<token>. */
  via?: 'direct' | 'proxied';
}

export type Body = string | Buffer | FormData | URLSearchParams | Record<string, unknown> | unknown[];

/** Posts a body as-is; objects and arrays are sent as JSON. */
export async function postIntake(runtime: TestRuntime, token: string, body: Body | undefined, options: PostOptions = {}): Promise<TestResponse> {
  const base = options.via === 'direct' ? runtime.intakeDirectUrl : `${runtime.intakeUrl}/hooks/leads`;
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | Uint8Array | FormData | URLSearchParams | undefined;
  if (body === undefined || typeof body === 'string' || body instanceof FormData || body instanceof URLSearchParams) {
    payload = body;
  } else if (Buffer.isBuffer(body)) {
    payload = new Uint8Array(body);
  } else {
    payload = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}/${token}`, { method: options.method ?? 'POST', headers, body: payload });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed as any, text };
}

export async function readLead(runtime: TestRuntime, tenant: Tenant, leadId: string): Promise<Record<string, any>> {
  const response = await runtime.request('GET', `/leads/${leadId}`, { key: tenant.apiKey });
  if (response.status !== 200) throw new Error(`GET /leads/${leadId} answered ${response.status}`);
  return response.body;
}

export async function leadCount(runtime: TestRuntime, tenant: Tenant): Promise<number> {
  const response = await runtime.request('GET', '/leads?limit=1', { key: tenant.apiKey });
  return response.body.count;
}

export const uniquePhone = () => `05${Math.floor(Math.random() * 10)}-${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
export const uniqueEmail = () => `person-${randomUUID().slice(0, 8)}@example.com`;

/** The E.164 form of an Israeli mobile number written `05X-XXXXXXX`. */
export const e164 = (phone: string) => `+972${phone.replace(/\D/g, '').slice(1)}`;
