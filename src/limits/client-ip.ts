import { BlockList, isIP } from 'node:net';
import { addressRangeProblem, normalizeAddress } from '../config/ip-address.js';

/** What `clientIp` reads from a request (an `IncomingMessage` fits). */
export interface ClientIpSource {
  readonly socket: { readonly remoteAddress?: string | undefined };
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/**
 * The set of proxies whose X-Forwarded-For is believed, from `trusted_proxies` entries
 * (addresses and CIDRs, IPv4 and IPv6); undefined when there are none, so the request
 * path skips the look-up. Throws on an entry `addressRangeProblem` rejects.
 */
export function trustedProxyList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const problem = addressRangeProblem(entry);
    if (problem !== undefined) throw new Error(problem);
    const [addressText = '', prefixText] = entry.split('/');
    const address = normalizeAddress(addressText) ?? addressText;
    const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
    if (prefixText === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefixText), family);
  }
  return list;
}

/**
 * The client's address: the socket peer, unless the peer is a trusted proxy; then the
 * right-most address of X-Forwarded-For that is not itself a trusted proxy (everything
 * left of it may be forged by the client). A chain of trusted proxies only yields its
 * left-most valid address; a malformed entry stops the walk at the last good one.
 * IPv4-mapped IPv6 peers (`::ffff:10.0.0.1`) count as IPv4.
 */
export function clientIp(request: ClientIpSource, trustedProxies: BlockList | undefined): string {
  const peer = peerAddress(request.socket);
  if (trustedProxies === undefined || !isTrusted(peer, trustedProxies)) return peer;
  const header = request.headers['x-forwarded-for'];
  const chain = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  let client = peer;
  for (let index = chain.length - 1; index >= 0; index--) {
    const text = (chain[index] ?? '').trim();
    const address = normalizeAddress(text);
    if (address === undefined) break;
    client = address;
    if (!isTrusted(address, trustedProxies)) break;
  }
  return client;
}

/** Whether the socket peer is one of the trusted proxies (whose X-Forwarded-* headers are believed). */
export function isFromTrustedProxy(request: ClientIpSource, trustedProxies: BlockList | undefined): boolean {
  return trustedProxies !== undefined && isTrusted(peerAddress(request.socket), trustedProxies);
}

/** Normalized peer addresses by socket: a keep-alive connection's peer never changes. */
const peers = new WeakMap<object, string>();

function peerAddress(socket: ClientIpSource['socket']): string {
  let peer = peers.get(socket);
  if (peer === undefined) {
    peer = normalizeAddress(socket.remoteAddress ?? '') ?? 'unknown';
    peers.set(socket, peer);
  }
  return peer;
}

function isTrusted(address: string, list: BlockList): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
}
