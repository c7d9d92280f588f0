import ipaddr from 'ipaddr.js';

/**
 * The optional IP allow-list of spec §5: single IPv4/IPv6 addresses or CIDR ranges. It is honoured
 * only on the direct address, where the source IP is the sender's own.
 */
export type AllowRange = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is read as the IPv4 address it carries. */
function toCanonical(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/** A single address or a CIDR range, or undefined when the entry is neither (only dotted-quad IPv4). */
export function parseAllowEntry(entry: string): AllowRange | undefined {
  const text = entry.trim();
  try {
    if (text.includes('/')) {
      if (ipaddr.IPv4.isValidCIDRFourPartDecimal(text)) return ipaddr.IPv4.parseCIDR(text);
      if (ipaddr.IPv6.isValidCIDR(text)) {
        const [address, bits] = ipaddr.IPv6.parseCIDR(text);
        return address.isIPv4MappedAddress() && bits >= 96 ? [address.toIPv4Address(), bits - 96] : [address, bits];
      }
      return undefined;
    }
    if (ipaddr.IPv4.isValidFourPartDecimal(text)) return [ipaddr.IPv4.parse(text), 32];
    if (ipaddr.IPv6.isValid(text)) {
      const address = toCanonical(ipaddr.IPv6.parse(text));
      return [address, address.kind() === 'ipv4' ? 32 : 128];
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export function isAddressAllowed(sourceIp: string, entries: string[]): boolean {
  if (!ipaddr.isValid(sourceIp)) return false;
  const address = toCanonical(ipaddr.parse(sourceIp));
  return entries.some((entry) => {
    const range = parseAllowEntry(entry);
    return range !== undefined && range[0].kind() === address.kind() && address.match(range);
  });
}
