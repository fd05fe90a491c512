// The SSRF guard's rules, with an injected resolver (no network needed).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCallableUrl, checkTarget, forbiddenAddress, forbiddenName, TargetRefused, type Lookup } from '../src/http/ssrf.ts';
import { pinnedLookup } from '../src/modules/webhooks/sender.ts';

describe('forbiddenAddress', () => {
  test('refuses loopback, private, link-local, CGNAT, multicast, reserved and embedded forms', () => {
    const refused = [
      '127.0.0.1', '127.255.255.254', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.1.1',
      '169.254.169.254', '169.254.0.1', '100.64.0.1', '100.127.255.255', '0.0.0.0', '0.1.2.3', '224.0.0.1', '239.255.255.250',
      '255.255.255.255', '240.0.0.1', '192.0.2.1', '198.18.0.1', '198.51.100.7', '203.0.113.9',
      '::1', '::', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1',
      'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'febf::1', 'fec0::1', 'ff02::1', 'ff05::2',
      '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::1', '2002:a00:1::', '2001:db8::1', '64:ff9b:1::1',
    ];
    for (const ip of refused) assert.ok(forbiddenAddress(ip), `${ip} should be refused`);
  });

  test('IPv4 inside every IPv6 embedding is judged as IPv4: translated ::ffff:0:0/96, compatible, NAT64, 6to4; Teredo refused', () => {
    const embedded = [
      '::ffff:0:127.0.0.1', '::ffff:0:7f00:1', '::ffff:0:a9fe:a9fe', '::ffff:0:10.1.2.3', // IPv4-translated (SIIT)
      '::10.0.0.1', '::a9fe:a9fe', // IPv4-compatible
      '64:ff9b::127.0.0.1', '64:ff9b::192.168.0.1', // NAT64
      '2002:c0a8:101::1', '2002:a9fe:a9fe::', // 6to4
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001::1', // Teredo
    ];
    for (const ip of embedded) assert.ok(forbiddenAddress(ip), `${ip} should be refused`);
    assert.equal(forbiddenAddress('::ffff:0:8.8.8.8'), null, 'a public address stays public in the translated form');
  });

  test('IPv6 outside global unicast (2000::/3) is refused, also forms that only look like an embedding', () => {
    for (const ip of ['::ffff:ffff:10.0.0.1', '::1:ffff:7f00:1', '1::1', '4000::1', 'e000::1', 'c000::1']) {
      assert.match(forbiddenAddress(ip) ?? '', /reserved|private|link-local|multicast/, `${ip} should be refused`);
    }
    assert.equal(forbiddenAddress('3fff:1::1'), null, 'the top of 2000::/3 is still global unicast');
  });

  test('accepts public unicast addresses, also IPv4-mapped', () => {
    const allowed = ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.0.1', '11.0.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'];
    for (const ip of allowed) assert.equal(forbiddenAddress(ip), null, ip);
  });

  test('names: metadata, internal-only suffixes and single labels are refused before any lookup', () => {
    for (const n of ['metadata.google.internal', 'METADATA.GOOGLE.INTERNAL.', 'metadata', 'db.internal', 'printer.local', 'localhost', 'intranet', 'router.home.arpa', 'foo.localhost', 'a.b.LOCALHOST.', 'localhost.']) {
      assert.ok(forbiddenName(n), n);
    }
    for (const n of ['example.com', 'hooks.loja.com.br', 'api.stripe.com']) assert.equal(forbiddenName(n), null, n);
  });
});

describe('checkTarget', () => {
  const table: Record<string, string[]> = {
    'public.example.com': ['93.184.216.34'],
    'rebind.example.com': ['127.0.0.1'],
    'mixed.example.com': ['93.184.216.34', '10.0.0.7'],
    'v6.example.com': ['::1'],
    'mapped.example.com': ['::ffff:169.254.169.254'],
    'meta.example.com': ['169.254.169.254'],
  };
  const lookup: Lookup = async (host) => {
    const list = table[host];
    if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const refusal = async (url: string, allowPrivate = false) => {
    try {
      await checkTarget(url, { allowPrivate, lookup });
      return null;
    } catch (err) {
      assert.ok(err instanceof TargetRefused, String(err));
      return err.message;
    }
  };

  test('a name is judged by every address it resolves to', async () => {
    assert.equal(await refusal('https://public.example.com/hook'), null);
    assert.match((await refusal('https://rebind.example.com/hook'))!, /resolves to a loopback address/);
    assert.match((await refusal('https://mixed.example.com/hook'))!, /resolves to a private address \(10\.0\.0\.7\)/);
    assert.match((await refusal('https://v6.example.com/hook'))!, /loopback/);
    assert.match((await refusal('https://mapped.example.com/hook'))!, /link-local/);
    assert.match((await refusal('https://meta.example.com/latest/meta-data'))!, /link-local/);
    assert.match((await refusal('https://nowhere.example.com/hook'))!, /does not resolve/);
  });

  test('the checked address is the one returned for pinning', async () => {
    const t = await checkTarget('https://public.example.com:8443/a?b=1', { allowPrivate: false, lookup });
    assert.deepEqual(t.address, { address: '93.184.216.34', family: 4 });
    assert.equal(t.port, 8443);
    assert.equal(t.host, 'public.example.com');
  });

  test('syntax: https only, no credentials; literals are checked without lookup', async () => {
    assert.match((await refusal('http://public.example.com/'))!, /https/);
    assert.match((await refusal('https://a:b@public.example.com/'))!, /credentials/);
    assert.match((await refusal('ftp://public.example.com/'))!, /https/);
    assert.match((await refusal('https://[::1]/'))!, /loopback/);
    assert.match((await refusal('https://0x7f.1/'))!, /loopback/); // WHATWG URL normalises to 127.0.0.1
    assert.match((await refusal('https://017700000001/'))!, /loopback/); // octal
    assert.equal(await refusal('https://8.8.8.8/'), null);
    assert.match((await refusal('https://[::ffff:0:127.0.0.1]/'))!, /loopback/);
    assert.match((await refusal('https://hooks.localhost/'))!, /internal-only host name/);
  });

  test('WEBHOOK_ALLOW_PRIVATE_TARGETS skips the address rules and allows http (local development), never the other syntax rules', async () => {
    assert.equal(await refusal('https://127.0.0.1/', true), null);
    assert.equal(await refusal('https://rebind.example.com/', true), null);
    assert.equal(await refusal('http://127.0.0.1:4000/hook', true), null);
    assert.equal(await refusal('http://localhost/hook', true), null);
    assert.equal((await checkTarget('http://localhost/hook', { allowPrivate: true, lookup })).port, 80);
    assert.match((await refusal('ftp://127.0.0.1/', true))!, /must use https/);
    assert.match((await refusal('http://a:b@127.0.0.1/', true))!, /credentials/);
  });

  test('refusals the setting would lift name it; others do not', async () => {
    const setting = /WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for local development/;
    for (const url of ['https://127.0.0.1/', 'https://[::1]/', 'https://10.0.0.1/', 'https://rebind.example.com/hook', 'https://localhost/', 'http://public.example.com/']) {
      assert.match((await refusal(url))!, setting, url);
    }
    assert.doesNotMatch((await refusal('ftp://public.example.com/'))!, setting);
    assert.doesNotMatch((await refusal('https://a:b@public.example.com/'))!, setting);
  });

  test('at creation, a name that does not resolve yet is accepted; a private one is a 400 on the field', async () => {
    await assertCallableUrl('https://nowhere.example.com/hook', 'url', { allowPrivate: false, lookup });
    await assert.rejects(assertCallableUrl('https://rebind.example.com/hook', 'postbackUrl', { allowPrivate: false, lookup }), (err: any) => {
      assert.equal(err.status, 400);
      assert.equal(err.errors[0].field, 'postbackUrl');
      return true;
    });
  });
});

describe('pinned connection', () => {
  test('the socket lookup answers the checked address whatever the name (DNS rebinding)', async () => {
    const lookup = pinnedLookup({ address: '93.184.216.34', family: 4 }) as unknown as (h: string, o: object, cb: (...a: unknown[]) => void) => void;
    const one = await new Promise<unknown[]>((resolve) => lookup('rebind.example.com', {}, (...a) => resolve(a)));
    assert.deepEqual(one, [null, '93.184.216.34', 4]);
    const all = await new Promise<unknown[]>((resolve) => lookup('rebind.example.com', { all: true }, (...a) => resolve(a)));
    assert.deepEqual(all, [null, [{ address: '93.184.216.34', family: 4 }]]);
  });
});
