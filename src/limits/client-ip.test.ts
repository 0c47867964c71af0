import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addressRangeProblem } from '../config/ip-address.js';
import { clientIp, trustedProxyList } from './client-ip.js';

const trusted = trustedProxyList(['10.0.0.0/8', '::1', '2001:db8::/32', '192.168.1.1']);
const request = (remoteAddress: string | undefined, forwardedFor?: string | string[]) => ({
  socket: { remoteAddress },
  headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
});

test('an untrusted peer is the client, whatever X-Forwarded-For says', () => {
  assert.equal(clientIp(request('203.0.113.9', '1.2.3.4'), trusted), '203.0.113.9');
  assert.equal(clientIp(request('203.0.113.9', '1.2.3.4'), undefined), '203.0.113.9');
  assert.equal(
    clientIp(request('10.1.2.3', '1.2.3.4'), undefined),
    '10.1.2.3',
    'no trusted list: never believe the header',
  );
});

test('behind trusted proxies: the right-most address that is not a trusted proxy', () => {
  assert.equal(clientIp(request('10.0.0.5', '198.51.100.1'), trusted), '198.51.100.1');
  // The client forged "6.6.6.6"; the proxies appended the real address then themselves.
  assert.equal(clientIp(request('10.0.0.5', '6.6.6.6, 198.51.100.1, 10.9.9.9'), trusted), '198.51.100.1');
  assert.equal(
    clientIp(request('::1', ['6.6.6.6', '198.51.100.2 , 192.168.1.1']), trusted),
    '198.51.100.2',
    'several header lines',
  );
  assert.equal(clientIp(request('2001:db8::7', '2001:DB8::9, 2a00:1450::1'), trusted), '2a00:1450::1');
});

test('IPv4-mapped peers, ports and brackets are normalised', () => {
  assert.equal(clientIp(request('::ffff:10.0.0.5', '198.51.100.1:4711'), trusted), '198.51.100.1');
  assert.equal(clientIp(request('::ffff:203.0.113.9'), trusted), '203.0.113.9');
  assert.equal(clientIp(request('10.0.0.5', '[2a00:1450::1]:443'), trusted), '2a00:1450::1');
});

test('a chain of only trusted proxies, a missing header or garbage stop at the last good address', () => {
  assert.equal(clientIp(request('10.0.0.5'), trusted), '10.0.0.5');
  assert.equal(clientIp(request('10.0.0.5', '10.0.0.7, 10.0.0.6'), trusted), '10.0.0.7');
  assert.equal(clientIp(request('10.0.0.5', 'not-an-ip, 10.0.0.6'), trusted), '10.0.0.6');
  assert.equal(clientIp(request('10.0.0.5', ''), trusted), '10.0.0.5');
  assert.equal(clientIp(request(undefined), trusted), 'unknown');
});

test('trusted_proxies entries are checked', () => {
  assert.equal(addressRangeProblem('10.0.0.0/8'), undefined);
  assert.equal(addressRangeProblem('::1'), undefined);
  assert.equal(addressRangeProblem('fd00::/8'), undefined);
  assert.match(addressRangeProblem('10.0.0.0/33') ?? '', /prefix length outside 0\.\.32/);
  assert.match(addressRangeProblem('fd00::/129') ?? '', /outside 0\.\.128/);
  assert.match(addressRangeProblem('10.0.0.0/x') ?? '', /prefix length/);
  assert.match(addressRangeProblem('localhost') ?? '', /not an IP address or CIDR/);
  assert.throws(() => trustedProxyList(['300.1.1.1']), /not an IP address/);
});
