import ipaddr from 'ipaddr.js';

/**
 * Spec §4 rules for a webhook `url`, and the address rules applied again at connect time (so a
 * name that later resolves to an internal address is still refused).
 */
export interface UrlRuleOptions {
  /**
   * WEBHOOKS_ALLOW_INSECURE (local only): what a receiver on this machine needs and no more: the
   * `http` scheme, and loopback hosts (on any port). Every other host keeps the default port.
   */
  allowInsecure: boolean;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

export const MAX_WEBHOOK_URL_LENGTH = 2048;

// Names that only mean something inside a network: never a public receiver.
const INTERNAL_NAME_SUFFIXES = [
  'localhost',
  'local',
  'localdomain',
  'internal',
  'intranet',
  'private',
  'corp',
  'home',
  'lan',
  'home.arpa',
  'arpa',
];

/** Brackets and a trailing dot removed, lowercased. */
function bareHostname(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  while (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** localhost by name, or a loopback IP literal in any form (127.0.0.0/8, ::1, IPv4-mapped). */
function isLoopbackHost(hostname: string): boolean {
  const host = bareHostname(hostname);
  if (ipaddr.isValid(host)) return ipaddr.process(host).range() === 'loopback';
  return isLoopbackName(host);
}

/**
 * True when a receiver at this IP address must not be contacted: anything but public unicast
 * (private, loopback, link-local and cloud metadata, unique-local, CGNAT, multicast, reserved,
 * and IPv6 forms that embed an IPv4 address). IPv4-mapped IPv6 is judged as the IPv4 address.
 */
export function isForbiddenAddress(address: string, options: UrlRuleOptions): boolean {
  const host = bareHostname(address);
  if (!ipaddr.isValid(host)) return true;
  const parsed = ipaddr.process(host);
  const range = parsed.range();
  if (range === 'unicast') return false;
  return !(options.allowInsecure && range === 'loopback');
}

function hostnameProblem(hostname: string, options: UrlRuleOptions): string | undefined {
  const host = bareHostname(hostname);
  if (host === '') return 'the URL has no host';
  if (ipaddr.isValid(host)) {
    return isForbiddenAddress(host, options) ? 'the URL points to a private, loopback, link-local or reserved IP address' : undefined;
  }
  if (isLoopbackName(host)) return options.allowInsecure ? undefined : 'the URL points to localhost';
  if (!host.includes('.')) return 'the URL points to an internal host name';
  if (INTERNAL_NAME_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) {
    return 'the URL points to an internal host name';
  }
  return undefined;
}

/**
 * https on the default port, no username or password, not localhost, not an internal host name,
 * not a private/loopback/link-local/metadata IP in any literal form (the WHATWG URL parser
 * normalizes decimal, octal and hex IPv4 and IPv4-mapped IPv6 first, and drops a port that is the
 * scheme's default, so `:443` on https counts as the default port).
 */
export function checkWebhookUrl(raw: string, options: UrlRuleOptions): UrlCheck {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) return { ok: false, reason: `the URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'the URL is not a valid absolute URL' };
  }
  const schemes = options.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return { ok: false, reason: 'the URL must use https' };
  // Only a local receiver (loopback, insecure mode) may listen on another port.
  if (url.port !== '' && !(options.allowInsecure && isLoopbackHost(url.hostname))) {
    return { ok: false, reason: `the URL must use the default ${url.protocol.slice(0, -1)} port` };
  }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'the URL must not contain a username or password' };
  const problem = hostnameProblem(url.hostname, options);
  return problem ? { ok: false, reason: problem } : { ok: true, url };
}
