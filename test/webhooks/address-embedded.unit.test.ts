// Every IPv6 form that embeds an IPv4 address is judged by that address (docs/hardening.md#hostile-input):
// a webhook cannot reach 169.254.169.254 or a private network through a translation prefix.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { refusedBecause } from '../../src/webhooks/address.js';

describe('IPv6 forms embedding an IPv4 address', () => {
  const cases: [form: string, address: string, why: string | null][] = [
    ['IPv4-mapped', '::ffff:169.254.169.254', 'link-local'],
    ['IPv4-mapped, hex', '::ffff:a9fe:a9fe', 'link-local'],
    ['IPv4-mapped, public', '::ffff:8.8.8.8', null],
    ['IPv4-translated', '::ffff:0:a9fe:a9fe', 'link-local'],
    ['IPv4-translated, dotted', '::ffff:0:10.1.2.3', 'private'],
    ['IPv4-translated, public', '::ffff:0:8.8.8.8', null],
    ['IPv4-compatible', '::10.0.0.1', 'private'],
    ['NAT64 well-known', '64:ff9b::a9fe:a9fe', 'link-local'],
    ['NAT64 well-known, dotted', '64:ff9b::127.0.0.1', 'loopback'],
    ['NAT64 well-known, public', '64:ff9b::8.8.8.8', null],
    ['NAT64 local-use', '64:ff9b:1::a9fe:a9fe', 'local-use NAT64'],
    ['NAT64 local-use, public-looking', '64:ff9b:1::808:808', 'local-use NAT64'],
    ['6to4', '2002:a9fe:a9fe::1', 'link-local'],
    ['6to4, private', '2002:c0a8:0101::1', 'private'],
    ['6to4, public', '2002:808:808::1', null],
    ['Teredo, client 192.0.2.45 (inverted)', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'documentation'],
    ['Teredo, public server and client', '2001:0:808:808:0:0:f7f7:f7f7', 'reserved'],
    ['Teredo, loopback server', '2001:0:7f00:1::1', 'loopback'],
  ];
  for (const [form, address, why] of cases) {
    test(`${form}: ${address} → ${why ?? 'allowed'}`, () => assert.equal(refusedBecause(address), why));
  }
});
