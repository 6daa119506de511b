import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_DENY, describeRefusal, OutboundPolicy } from '../src/index.js';

describe('outbound address policy: built-in rules (both modes)', () => {
  const policy = new OutboundPolicy();

  it('denies link-local and cloud metadata addresses, "this network", :: and multicast', () => {
    for (const address of [
      '169.254.169.254',
      '169.254.0.1',
      'fe80::1',
      'fd00:ec2::254',
      '0.0.0.0',
      '0.1.2.3',
      '::',
      '224.0.0.251',
      '239.255.255.250',
      'ff02::1',
    ]) {
      expect(policy.refusalOf(address), address).toMatchObject({ target: address, source: 'built-in' });
    }
    expect(policy.refusalOf('169.254.169.254')).toEqual({ target: '169.254.169.254', rule: '169.254.0.0/16', source: 'built-in' });
  });

  it('matches IPv4-mapped IPv6 addresses against the IPv4 rules', () => {
    expect(policy.refusalOf('::ffff:169.254.169.254')).toMatchObject({ rule: '169.254.0.0/16' });
    expect(policy.refusalOf('::ffff:a9fe:a9fe')).toMatchObject({ rule: '169.254.0.0/16' });
    expect(policy.refusalOfUrl('http://[::ffff:169.254.169.254]/latest/meta-data')).toMatchObject({ rule: '169.254.0.0/16' });
  });

  it('leaves loopback, private ranges and public addresses to the deployment', () => {
    for (const address of ['127.0.0.1', '::1', '10.1.2.3', '172.16.0.1', '192.168.1.1', 'fd12::1', '93.184.215.14', '2606:4700::1111']) {
      expect(policy.refusalOf(address), address).toBeNull();
    }
  });

  it('reads the URL forms an address can hide in as the address', () => {
    // WHATWG URL parsing turns these into 169.254.169.254 and 0.0.0.0.
    for (const url of ['http://2852039166/', 'http://0xa9.0xfe.0xa9.0xfe/', 'http://169.254.169.254./', 'http://0/']) {
      expect(policy.refusalOfUrl(url), url).not.toBeNull();
    }
    expect(policy.refusalOfUrl('https://hooks.example.com/x')).toBeNull();
  });

  it('the built-in list is the documented one', () => {
    expect(BUILT_IN_DENY).toEqual(['169.254.0.0/16', 'fe80::/10', 'fd00:ec2::254/128', '0.0.0.0/8', '::/128', '224.0.0.0/4', 'ff00::/8']);
  });
});

describe('outbound address policy: SWITCHBOARD_OUTBOUND_DENY and _ALLOW', () => {
  it('adds denied CIDRs, addresses and host names to the built-in ones', () => {
    const policy = OutboundPolicy.fromEnv({ SWITCHBOARD_OUTBOUND_DENY: ' 127.0.0.0/8, ::1 ,10.0.0.0/8,internal.example.com,*.corp.example.com' });
    expect(policy.refusalOf('127.0.0.2')).toEqual({ target: '127.0.0.2', rule: '127.0.0.0/8', source: 'SWITCHBOARD_OUTBOUND_DENY' });
    expect(policy.refusalOf('::1')).toMatchObject({ rule: '::1' });
    expect(policy.refusalOf('::ffff:10.9.9.9')).toMatchObject({ rule: '10.0.0.0/8' });
    expect(policy.refusalOf('169.254.169.254')).toMatchObject({ source: 'built-in' });
    // A host name rule matches the name, whatever address it resolves to, and the URL before resolving.
    expect(policy.refusalOf('93.184.215.14', 'Internal.Example.com.')).toEqual({
      target: 'internal.example.com',
      rule: 'internal.example.com',
      source: 'SWITCHBOARD_OUTBOUND_DENY',
    });
    expect(policy.refusalOfUrl('http://internal.example.com:8080/hook')).toMatchObject({ rule: 'internal.example.com' });
    expect(policy.refusalOfUrl('http://a.b.corp.example.com/')).toMatchObject({ rule: '*.corp.example.com' });
    expect(policy.refusalOfUrl('http://corp.example.com/')).toBeNull();
    expect(policy.refusalOfUrl('http://localhost:3000/')).toBeNull();
    expect(policy.refusalOf('93.184.215.14', 'example.com')).toBeNull();
  });

  it('allow wins over every deny rule, built-in ones included, by address or by host name', () => {
    const policy = OutboundPolicy.fromEnv({
      SWITCHBOARD_OUTBOUND_DENY: '10.0.0.0/8,hooks.internal',
      SWITCHBOARD_OUTBOUND_ALLOW: '10.1.0.0/16,169.254.10.10,hooks.internal,receiver.corp',
    });
    expect(policy.refusalOf('10.1.2.3')).toBeNull();
    expect(policy.refusalOf('10.2.0.1')).toMatchObject({ rule: '10.0.0.0/8' });
    expect(policy.refusalOf('169.254.10.10')).toBeNull();
    expect(policy.refusalOf('169.254.169.254')).toMatchObject({ rule: '169.254.0.0/16' });
    expect(policy.refusalOfUrl('http://hooks.internal/')).toBeNull();
    // An allowed name may resolve to a denied address: naming it is the operator's choice.
    expect(policy.refusalOf('10.2.0.1', 'receiver.corp')).toBeNull();
  });

  it('refuses an entry that is neither a CIDR, an address nor a host name, naming the variable', () => {
    expect(() => OutboundPolicy.fromEnv({ SWITCHBOARD_OUTBOUND_DENY: '10.0.0.0/33' })).toThrow(
      'SWITCHBOARD_OUTBOUND_DENY: "10.0.0.0/33" must have a prefix length from 0 to 32',
    );
    expect(() => OutboundPolicy.fromEnv({ SWITCHBOARD_OUTBOUND_ALLOW: 'not a host' })).toThrow(
      'SWITCHBOARD_OUTBOUND_ALLOW: "not a host" is neither a CIDR, an IP address nor a host name',
    );
    expect(() => OutboundPolicy.fromEnv({ SWITCHBOARD_OUTBOUND_DENY: 'fe80::/x' })).toThrow('must have a prefix length from 0 to 128');
  });

  it('says what was refused, by which rule, and where that rule is set', () => {
    const policy = OutboundPolicy.fromEnv({ SWITCHBOARD_OUTBOUND_DENY: '127.0.0.0/8' });
    expect(describeRefusal(policy.refusalOf('127.0.0.1')!)).toBe(
      '127.0.0.1 is denied by the outbound address policy (rule 127.0.0.0/8, SWITCHBOARD_OUTBOUND_DENY; SWITCHBOARD_OUTBOUND_ALLOW can allow it)',
    );
    expect(describeRefusal(policy.refusalOf('169.254.169.254')!)).toContain('(rule 169.254.0.0/16, a built-in rule;');
  });
});

/** Shared with engines/gows/internal/natshost/outbound_test.go: the Go policy must refuse the same. */
interface EmbeddedCases {
  readonly policies: readonly {
    readonly deny: string;
    readonly allow: string;
    readonly cases: readonly { readonly address: string; readonly refusal: { target: string; rule: string; source: string } | null }[];
  }[];
}
const embedded = JSON.parse(readFileSync(new URL('outbound-embedded-cases.json', import.meta.url), 'utf8')) as EmbeddedCases;

describe('outbound address policy: IPv6 addresses that carry an IPv4 address (NAT64, 6to4, IPv4-compatible, -mapped)', () => {
  it.each(embedded.policies)('deny "$deny", allow "$allow": judged by the IPv4 address they carry too', ({ deny, allow, cases }) => {
    const policy = new OutboundPolicy({ deny, allow });
    for (const { address, refusal } of cases) {
      expect(policy.refusalOf(address), address).toEqual(refusal);
      // As a URL's host too (written canonically by the URL parser, so only the rule is compared).
      const byUrl = policy.refusalOfUrl(`http://[${address}]/`);
      expect(byUrl === null ? null : byUrl.rule, `http://[${address}]/`).toBe(refusal === null ? null : refusal.rule);
    }
  });
});
