import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isForbiddenAddress, type UrlRuleOptions } from './webhook-url-rules';

export const ADDRESS_REFUSED = 'WEBHOOK_ADDRESS_REFUSED';

export type Resolver = (
  hostname: string,
  options: { all: true; family?: number; hints?: number },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

export class AddressRefusedError extends Error {
  readonly code = ADDRESS_REFUSED;
  constructor(readonly address: string) {
    super(`receiver address ${address} is not allowed`);
  }
}

/**
 * A `lookup` for node:http(s) that resolves the receiver's name and refuses the connection when
 * any answer is a forbidden address. The check happens when the socket connects, so a name that
 * resolved to a public address when the URL was saved cannot later reach an internal host (DNS
 * rebinding).
 */
export function guardedLookup(options: UrlRuleOptions, resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const family = typeof lookupOptions.family === 'number' ? lookupOptions.family : undefined;
    resolve(hostname, { all: true, ...(family ? { family } : {}), hints: lookupOptions.hints }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address, options));
      if (forbidden) return callback(new AddressRefusedError(forbidden.address), '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (lookupOptions.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
