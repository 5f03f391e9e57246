/**
 * The bridge's storage in the gateway's SQLite store: matter.js's values come back as they went in,
 * contexts nest, a backup carries them; the pairing secrets are drawn once, valid, and kept; bad
 * `matter.*` settings are refused by name before anything of matter.js is loaded.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { factoryReset } from '../../src/core/maintenance/reset.ts';
import { writeBackup } from '../../src/core/maintenance/store-backup.ts';
import { listenAddresses, MatterSettingsError, startMatter } from '../../src/integrations/matter/index.ts';
import { bridgeUniqueId, drawSecrets, pairingSecrets, validPasscode } from '../../src/integrations/matter/pairing.ts';
import { SqliteMatterStorage } from '../../src/integrations/matter/storage.ts';
import { openDb } from '../../src/store/db.ts';
import { startGateway, tempDir } from '../helpers/foundation.ts';

function store(t: { after(fn: () => void): void }) {
  const dir = tempDir('opencube-matter-store-');
  const file = join(dir, 'gateway.db');
  const db = openDb(file);
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, file, dir };
}

test("matter.js's values (numbers, strings, bigints, bytes, nested objects) come back from the store as they were written", (t) => {
  const { db } = store(t);
  const s = new SqliteMatterStorage(db, 'bridge');
  s.initialize();
  const values = {
    counter: 42,
    label: 'Kitchen ✓',
    nodeId: 0x1234_5678_9abc_def0n,
    key: new Uint8Array([0, 1, 254, 255]),
    fabric: { index: 1, ids: [1, 2, 3], nested: { ok: true, none: null } },
  };
  s.set(['root', 'fabrics'], values);
  for (const [k, v] of Object.entries(values)) assert.deepEqual(s.get(['root', 'fabrics'], k), v, k);
  assert.deepEqual(s.values(['root', 'fabrics']), values);
  assert.deepEqual(s.keys(['root', 'fabrics']).sort(), Object.keys(values).sort());
  assert.equal(s.has(['root', 'fabrics'], 'counter'), true);
  s.delete(['root', 'fabrics'], 'counter');
  assert.equal(s.get(['root', 'fabrics'], 'counter'), undefined);
  assert.equal(s.has(['root', 'fabrics'], 'counter'), false);
});

test('contexts nest: sub-contexts are listed once each, and clearing a context clears everything under it only', (t) => {
  const { db } = store(t);
  const s = new SqliteMatterStorage(db, 'bridge');
  s.set(['a'], 'k', 1);
  s.set(['a', 'b'], 'k', 2);
  s.set(['a', 'b', 'c'], 'k', 3);
  s.set(['a', 'd'], 'k', 4);
  s.set(['ab'], 'k', 5);
  s.set(['x.y'], 'k', 6);
  assert.deepEqual(s.contexts(['a']).sort(), ['b', 'd']);
  assert.deepEqual(s.contexts([]).sort(), ['a', 'ab', 'x.y'], 'a dot inside a context name stays inside it');
  assert.equal(s.get(['x.y'], 'k'), 6);
  s.clearAll(['a']);
  assert.equal(s.get(['a'], 'k'), undefined);
  assert.equal(s.get(['a', 'b', 'c'], 'k'), undefined);
  assert.equal(s.get(['ab'], 'k'), 5, 'a context that only starts with the same letters is kept');
  const other = new SqliteMatterStorage(db, 'other');
  assert.equal(other.get(['ab'], 'k'), undefined, 'two namespaces do not see each other');
});

test("a backup of the store carries the bridge's storage and its pairing secrets", async (t) => {
  const { db, dir } = store(t);
  new SqliteMatterStorage(db, 'bridge').set(['root'], 'fabric', 'secret-fabric');
  const secrets = pairingSecrets(db);
  const file = join(dir, 'backup.db');
  await writeBackup(db, file, { gatewayVersion: '0.0.0', settings: {}, now: Date.now() } as never);
  const copy = new Database(file, { readonly: true });
  t.after(() => copy.close());
  assert.equal(new SqliteMatterStorage(copy, 'bridge').get(['root'], 'fabric'), 'secret-fabric');
  assert.deepEqual(
    pairingSecrets(copy, () => assert.fail('the backup holds the secrets')),
    secrets,
  );
});

test('the passcode and discriminator are drawn once and kept; the unique id too', (t) => {
  const { db, file } = store(t);
  const first = pairingSecrets(db);
  assert.ok(validPasscode(first.passcode));
  assert.ok(first.discriminator >= 0 && first.discriminator < 4096);
  const id = bridgeUniqueId(db);
  assert.match(id, /^[0-9a-f]{32}$/);
  db.close();
  const again = openDb(file);
  t.after(() => again.close());
  assert.deepEqual(
    pairingSecrets(again, () => assert.fail('not drawn again')),
    first,
  );
  assert.equal(bridgeUniqueId(again), id);
});

test('a stored passcode the specification forbids, or a broken value, is drawn again', (t) => {
  const { db } = store(t);
  const put = db.prepare("INSERT OR REPLACE INTO matter_storage (context, key, value) VALUES ('opencube', ?, ?)");
  for (const [passcode, discriminator] of [
    ['12345678', '1'],
    ['0', '1'],
    ['99999999', '1'],
    ['"x"', '1'],
    ['20202021', '4096'],
    ['20202021', '-1'],
    ['1.5', '7'],
  ]) {
    put.run('passcode', passcode);
    put.run('discriminator', discriminator);
    const s = pairingSecrets(db, () => ({ passcode: 24681357, discriminator: 7 }));
    assert.deepEqual(s, { passcode: 24681357, discriminator: 7 }, `${passcode}/${discriminator}`);
  }
});

test('drawing never gives a forbidden passcode, even from a source that offers one', () => {
  const offers = [11111110, 12345677, 5]; // random(max) + 1: 11111111, 12345678, then 6
  let i = 0;
  const s = drawSecrets((max) => (max === 4096 ? 9 : (offers[i++] as number)));
  assert.deepEqual(s, { passcode: 6, discriminator: 9 });
  for (const bad of [0, 11111111, 12345678, 87654321, 99999999, 100000000, -1, 1.5, Number.NaN])
    assert.equal(validPasscode(bad), false, String(bad));
});

test('listen addresses: one IPv6 (required) and at most one IPv4; anything else is refused by name', async () => {
  assert.deepEqual(listenAddresses([]), {});
  assert.deepEqual(listenAddresses(['::1', '127.0.0.1']), { ipv6: '::1', ipv4: '127.0.0.1' });
  assert.deepEqual(listenAddresses(['fe80::1%eth0']), { ipv6: 'fe80::1%eth0' });
  for (const [list, message] of [
    [['127.0.0.1'], /needs an IPv6 address/],
    [['::1', '::2'], /more than one IPv6/],
    [['::1', '10.0.0.1', '10.0.0.2'], /more than one IPv4/],
    [['localhost'], /"localhost" is not an IP address/],
    [[''], /"" is not an IP address/],
    [['::1', '999.1.1.1'], /not an IP address/],
  ] as const) {
    assert.match(listenAddresses(list) as string, message, JSON.stringify(list));
    await assert.rejects(
      startMatter({ listen_addresses: [...list], interface: '', port: 5540 } as never),
      (err: Error) => err instanceof MatterSettingsError && /^matter\.listen_addresses: /.test(err.message),
    );
  }
  for (const iface of ['eth0/../x', 'a'.repeat(16), 'eth 0', '$(x)'])
    await assert.rejects(
      startMatter({ listen_addresses: [], interface: iface, port: 5540 } as never),
      /matter\.interface: .* is not an interface name/,
    );
});

test('a factory reset clears the bridge: its fabrics and keys go and a new pairing code is drawn, with or without a running gateway', async (t) => {
  // Without a running gateway (`opencube reset` on the store).
  const { db } = store(t);
  const s = new SqliteMatterStorage(db, 'bridge');
  s.initialize();
  s.set(['root', 'fabrics'], { fabric: { index: 1 } });
  const before = pairingSecrets(db, () => ({ passcode: 20202021 + 1, discriminator: 7 }));
  factoryReset(db);
  assert.deepEqual(db.prepare('SELECT COUNT(*) AS n FROM matter_storage').get(), { n: 0 });
  const after = pairingSecrets(db, () => ({ passcode: 12345678, discriminator: 9 }));
  assert.notDeepEqual(after, before, 'a new pairing code');

  // With the gateway running (the control socket's and the console's reset), the bridge off.
  const gw = await startGateway();
  t.after(() => gw.stop());
  const other = new Database(join(gw.dataDir, 'gateway.db'));
  t.after(() => other.close());
  other
    .prepare('INSERT INTO matter_storage (context, key, value) VALUES (?, ?, ?)')
    .run('bridge.root', 'fabrics', '{"index":1}');
  await gw.gateway.reset();
  assert.deepEqual(other.prepare('SELECT COUNT(*) AS n FROM matter_storage').get(), { n: 0 });
});
