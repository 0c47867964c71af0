import { isIP } from 'node:net';

/** Why an entry of `trusted_proxies` is not an address or CIDR; `undefined` when it is fine. */
export function addressRangeProblem(entry: string): string | undefined {
  const slash = entry.indexOf('/');
  const address = normalizeAddress(slash === -1 ? entry : entry.slice(0, slash));
  const family = address === undefined ? 0 : isIP(address);
  if (family === 0) return `"${entry}" is not an IP address or CIDR (e.g. 10.0.0.0/8, ::1)`;
  if (slash === -1) return undefined;
  const prefixText = entry.slice(slash + 1);
  const prefix = Number(prefixText);
  const maximum = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefixText) || prefix > maximum) return `"${entry}" has a prefix length outside 0..${maximum}`;
  return undefined;
}

/**
 * A bare IP address from a socket or X-Forwarded-For entry, or `undefined`: strips
 * `[…]` and ports (`1.2.3.4:80`, `[::1]:80`), zone ids, and the IPv4-mapped prefix.
 */
export function normalizeAddress(text: string): string | undefined {
  let address = text.trim();
  if (address.startsWith('[')) {
    const end = address.indexOf(']');
    if (end === -1) return undefined;
    address = address.slice(1, end);
  } else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) {
    address = address.slice(0, address.lastIndexOf(':'));
  }
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address);
  if (mapped) address = mapped[1] ?? address;
  if (isIP(address) === 0) return undefined;
  return address.toLowerCase();
}
