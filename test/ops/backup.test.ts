/**
 * Backup and restore (issue 13): a consistent copy of the store taken while the gateway runs and
 * writes, restored onto a fresh data folder with everything in it; a backup of an older schema
 * migrated on restore; damaged and foreign files refused with a clear message, changing nothing;
 * the same through the real CLI, with the gateway running and stopped.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { DeviceRegistry } from '../../src/core/devices/index.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { writeBackup } from '../../src/core/maintenance/store-backup.ts';
import { installRestore, prepareRestore, stagedPath } from '../../src/core/maintenance/store-restore.ts';
import { TokenService } from '../../src/core/tokens.ts';
import { migrations } from '../../src/store/migrations.ts';
import { freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, rest, startGateway, tempDir } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';
import { populate, snapshot } from './rig.ts';

/** Every file of a folder with the SHA-256 of its bytes. */
function folderState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir).sort())
    out[f] = statSync(join(dir, f)).isFile()
      ? createHash('sha256')
          .update(readFileSync(join(dir, f)))
          .digest('hex')
      : 'dir';
  return out;
}

describe('a backup taken while the gateway runs', () => {
  it('during a burst of writes restores onto a fresh folder with every device, name, tag, token, mode, engine, card and camera', async (t) => {
    const a = await startGateway();
    t.after(() => a.stop());
    const rig = await populate(a);
    t.after(() => rig.close());
    const dir = tempDir('opencube-backup-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.backup');

    // The burst: state reports for one device and new devices synced, while the backup is taken.
    let stop = false;
    let reports = 0;
    let synced = 0;
    const burst = async (lane: number) => {
      for (let i = 0; !stop; i++) {
        if (i % 5 === 4) {
          const r = await sendEvent(a, rig.token, 'DiscoveryRequest', {
            endpoints: [
              {
                third_serial_number: `burst-${lane}-${i}`,
                name: `Burst ${lane}-${i}`,
                display_category: 'plug',
                capabilities: [{ capability: 'power', permission: '1100' }],
                state: { power: { powerState: 'on' } },
                manufacturer: 'ACME',
                model: 'P1',
                firmware_version: '1.0.0',
                service_address: rig.service.url,
              },
            ],
          });
          assert.equal(r.json?.header?.name, 'Response', r.text);
          synced++;
        } else {
          const r = await sendEvent(
            a,
            rig.token,
            'DeviceStatesChangeReport',
            { state: { brightness: { brightness: 1 + ((reports + lane) % 100) } } },
            { endpoint: { serial_number: rig.serials[2] } },
          );
          assert.equal(r.json?.header?.name, 'Response', r.text);
          reports++;
        }
      }
    };
    const lanes = [0, 1, 2, 3].map((l) => burst(l));
    // Let the burst get going, so the copy runs while writes are in flight.
    while (reports < 40) await new Promise((r) => setTimeout(r, 5));
    // The gateway's own backup function, a page per step, so that the copy spans many writes.
    const started = reports + synced;
    const contents = await writeBackup(a.gateway.db, file, {
      gatewayVersion: 'test',
      settings: {},
      now: Date.now(),
      pagesPerStep: 1,
    });
    const during = reports + synced - started;
    stop = true;
    await Promise.all(lanes);
    assert.ok(during > 0, 'writes were committed while the copy ran');
    assert.equal(statSync(file).mode & 0o777, 0o600, 'the backup is readable by the gateway user only');
    assert.equal(existsSync(`${file}-wal`), false, 'one self-contained file');
    assert.equal(readFileSync(file).includes(Buffer.from(rig.token)), false, 'tokens are in the backup only hashed');

    const before = await snapshot(a.url, rig.token);
    const fresh = tempDir('opencube-restored-');
    const dbPath = join(fresh, 'gateway.db');
    const check = prepareRestore(file, stagedPath(dbPath));
    assert.equal(check.ok, true, check.ok ? '' : check.message);
    assert.ok(check.ok);
    assert.deepEqual(check.contents, contents);
    assert.equal(installRestore(dbPath, stagedPath(dbPath)), undefined, 'nothing was there to keep');

    const b = await startGateway({ dataDir: fresh });
    t.after(async () => {
      await b.stop();
      rmSync(fresh, { recursive: true, force: true });
    });
    const after = await snapshot(b.url, rig.token);
    // What the burst did not touch comes back exactly; what it did comes back as it was at one moment.
    const untouched = (s: typeof before) => ({
      ...s,
      devices: s.devices.filter(
        (d: any) => !String(d.third_serial_number).startsWith('burst-') && d.serial_number !== rig.serials[2],
      ),
    });
    assert.deepEqual(untouched(after), untouched(before));
    const busy = after.devices.find((d: any) => d.serial_number === rig.serials[2]) as any;
    assert.ok(busy.state.brightness.brightness >= 1 && busy.state.brightness.brightness <= 100);
    const restoredBurst = after.devices.filter((d: any) => String(d.third_serial_number).startsWith('burst-'));
    assert.equal(restoredBurst.length + 4, contents.devices, 'every device counted in the backup is there');
    assert.ok(restoredBurst.length <= synced);
    for (const d of restoredBurst as any[]) {
      const live = before.devices.find((x: any) => x.serial_number === d.serial_number);
      assert.deepEqual(d, live, 'a device synced during the backup is whole');
    }
    // Names, tags, the camera with its account, the armed mode, the volume: read as clients read them.
    const hall = after.devices.find((d: any) => d.serial_number === rig.serials[0]) as any;
    assert.equal(hall.name, 'Hall lamp');
    assert.deepEqual(hall.tags, { room: 'hall', floor: 0, blob: 'aGVsbG8=' });
    const camera = after.devices.find((d: any) => d.serial_number === rig.camera) as any;
    assert.equal(camera.protocol, 'esp32-cam');
    assert.equal(after.security.security_list.find((m: any) => m.sid === 1).enable, true);
    assert.equal(after.alarm.exit_delay, 30);
    assert.equal(after.cards.length, 1);
    assert.deepEqual(
      after.engines.engines.map((e: any) => e.name),
      ['Add-on TTS', 'eSpeak NG (built-in)'].filter((n) => before.engines.engines.some((e: any) => e.name === n)),
    );
    const volume = (g: typeof a) =>
      (g.gateway.db.prepare("SELECT value FROM kv WHERE key = 'speaker'").get() as { value: string }).value;
    assert.equal(volume(b), volume(a));
    assert.deepEqual(
      b.gateway.tokens.list().map((x) => [x.id, x.app_name]),
      a.gateway.tokens.list().map((x) => [x.id, x.app_name]),
    );
  });

  it('records the settings that differ from their defaults, and the CLI restore prints them without secrets', async (t) => {
    const a = await startGateway({
      overrides: { name: 'attic', zigbee: { mqtt_url: 'mqtt://z2m:pa55word@10.1.2.3:1883' } },
    });
    t.after(() => a.stop());
    const dir = tempDir('opencube-backup-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'b.db');
    await a.gateway.backup(file);
    const meta = new Database(file, { readonly: true });
    const settings = JSON.parse(
      (meta.prepare("SELECT value FROM opencube_backup WHERE key = 'settings'").get() as { value: string }).value,
    );
    meta.close();
    assert.equal(settings.OPENCUBE_NAME, 'attic');
    assert.equal(settings.OPENCUBE_ZIGBEE_MQTT_URL, 'mqtt://z2m:pa55word@10.1.2.3:1883');
    assert.equal(settings.OPENCUBE_DATA_DIR, undefined, 'the data folder is where the backup is restored');

    const target = join(dir, 'restored');
    const r = await runCli(['restore', file, '--data-dir', target]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^restored .*b\.db into .*restored: 0 devices \(0 cameras\), 0 tokens/);
    assert.match(r.stdout, /OPENCUBE_NAME='attic'/);
    assert.match(r.stdout, /OPENCUBE_ZIGBEE_MQTT_URL='mqtt:\/\/z2m:\[redacted\]@10\.1\.2\.3:1883'/);
    assert.equal(r.stdout.includes('pa55word'), false);
    // Quoted, for systemd's EnvironmentFile and for a shell (test/security/crafted-backups.test.ts).
    const env = readFileSync(join(target, 'settings-from-backup.env'), 'utf8');
    assert.match(env, /^OPENCUBE_ZIGBEE_MQTT_URL='mqtt:\/\/z2m:pa55word@10\.1\.2\.3:1883'$/m);
    assert.equal(statSync(join(target, 'settings-from-backup.env')).mode & 0o777, 0o600);
  });
});

/** A store as release 3 of the schema left it (before the dashboard cards), with a token and a device. */
function oldStore(file: string): { token: string; serial: string } {
  const db = new Database(file);
  for (const m of migrations.filter((x) => x.version <= 3)) {
    db.exec(m.sql);
    db.pragma(`user_version = ${m.version}`);
  }
  const token = new TokenService(db, 300_000).create('old-app');
  const device = new DeviceRegistry(db, new EventBus()).deviceFound('thirdparty', {
    driver_ref: 'x/old-1',
    third_serial_number: 'old-1',
    service_address: 'http://127.0.0.1:9/directive',
    name: 'Old lamp',
    manufacturer: 'ACME',
    model: 'L0',
    firmware_version: '0.9',
    display_category: 'light',
    capabilities: [{ capability: 'power', permission: '1100' }],
    tags: { kept: true },
  });
  db.close();
  return { token, serial: device.serial_number };
}

describe('a backup of an older schema', () => {
  it('is migrated on restore: its device and token work, and the newer tables are there', async (t) => {
    const dir = tempDir('opencube-old-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const old = join(dir, 'old.db');
    const { token, serial } = oldStore(old);
    const backup = join(dir, 'old.backup');
    const db = new Database(old);
    await writeBackup(db, backup, { gatewayVersion: '0.0.9', settings: {}, now: Date.UTC(2025, 5, 1) });
    db.close();

    const target = join(dir, 'data');
    mkdirSync(target);
    const dbPath = join(target, 'gateway.db');
    const check = prepareRestore(backup, stagedPath(dbPath));
    assert.ok(check.ok, check.ok ? '' : check.message);
    assert.equal(check.from_version, 3);
    assert.equal(check.meta?.gateway_version, '0.0.9');
    installRestore(dbPath, stagedPath(dbPath));
    const restored = new Database(dbPath, { readonly: true });
    assert.equal(restored.pragma('user_version', { simple: true }), migrations.at(-1)?.version);
    restored.close();

    const g = await startGateway({ dataDir: target });
    t.after(() => g.stop());
    const list = await call(g.url, 'GET', rest('v1', 'devices'), { token });
    assert.equal(list.json.error, 0, list.text);
    assert.deepEqual(
      list.json.data.device_list.map((d: any) => [d.serial_number, d.name, d.tags]),
      [[serial, 'Old lamp', { kept: true }]],
    );
    assert.deepEqual((await call(g.url, 'GET', rest('v2', 'ui/cards'), { token })).json.data, []);
  });
});

describe('a damaged or foreign file', () => {
  /** A good backup of a gateway with devices, made once. */
  async function goodBackup(dir: string): Promise<Buffer> {
    const g = await startGateway();
    try {
      const token = g.token('maker');
      await sendEvent(g, token, 'DiscoveryRequest', {
        endpoints: [
          endpoint('d1', 'http://127.0.0.1:9/directive', {
            name: 'Hall lamp',
            capabilities: [{ capability: 'power', permission: '1100' }],
            state: { power: { powerState: 'on' } },
          }),
        ],
      });
      await g.gateway.backup(join(dir, 'good.backup'));
      return readFileSync(join(dir, 'good.backup'));
    } finally {
      await g.stop();
    }
  }

  it('is refused with a message saying what is wrong, and nothing is written', async (t) => {
    const dir = tempDir('opencube-bad-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const good = await goodBackup(dir);
    const foreign = join(dir, 'foreign.db');
    const other = new Database(foreign);
    other.exec("CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photos (path) VALUES ('a.jpg')");
    other.close();
    const newer = join(dir, 'newer.db');
    writeFileSync(newer, good);
    const n = new Database(newer);
    n.pragma('user_version = 99');
    n.close();
    const changed = Buffer.from(good);
    const at = changed.indexOf('Hall lamp');
    assert.ok(at > 0);
    changed.write('Hall lamq', at);
    const zeroed = Buffer.from(good);
    zeroed.fill(0, 4096, 8192);

    const cases: [string, string | Buffer, RegExp][] = [
      ['an empty file', Buffer.alloc(0), /is not a backup of opencube \(not an SQLite database\)$/],
      ['a text file', Buffer.from('devices:\n  - lamp\n'.repeat(20)), /not an SQLite database/],
      ['a JSON export', Buffer.from(JSON.stringify({ devices: [], tokens: [] }).padEnd(300)), /not an SQLite database/],
      ['random bytes', randomBytes(16384), /not an SQLite database/],
      ['the SQLite header, then noise', Buffer.concat([good.subarray(0, 100), randomBytes(16384)]), /is damaged/],
      ['the first half of a backup', good.subarray(0, Math.floor(good.length / 2)), /is damaged/],
      ['a backup with a page of zeros', zeroed, /is damaged/],
      ['a backup with one name changed', changed, /is damaged: its contents differ from the checksum/],
      [
        'the database of another program',
        foreign,
        /an SQLite database but not a backup of opencube \(no table kv, tokens/,
      ],
      [
        'a backup of a newer release',
        newer,
        /comes from a newer release of opencube \(store version 99; this release reads up to \d+\)/,
      ],
      ['a folder', dir, /is not a file$/],
      ['no file at all', join(dir, 'nothing-here'), /cannot read .*ENOENT/],
    ];
    const target = join(dir, 'target');
    mkdirSync(target);
    for (const [what, content, message] of cases) {
      const file = typeof content === 'string' ? content : join(dir, 'candidate');
      if (typeof content !== 'string') writeFileSync(file, content);
      const r = prepareRestore(file, stagedPath(join(target, 'gateway.db')));
      assert.equal(r.ok, false, what);
      assert.ok(!r.ok);
      assert.match(r.message, message, what);
      assert.deepEqual(readdirSync(target), [], `${what}: nothing is left in the data folder`);
    }
  });

  it('through the CLI: exit code 1, the message on stderr, and the data folder byte for byte as it was', async (t) => {
    const dir = tempDir('opencube-bad-cli-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const data = join(dir, 'data');
    const g = await startGateway({ dataDir: data });
    g.token('kept');
    await g.stop();
    const before = folderState(data);
    assert.ok(before['gateway.db']);
    const half = join(dir, 'half.backup');
    const good = await goodBackup(dir);
    writeFileSync(half, good.subarray(0, Math.floor(good.length / 2)));
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a backup\n');
    for (const [file, message] of [
      [half, /^opencube: .*half\.backup is damaged/],
      [text, /^opencube: .*notes\.txt is not a backup of opencube \(not an SQLite database\)\n$/],
      [join(dir, 'missing.backup'), /^opencube: no file .*missing\.backup\n$/],
    ] as const) {
      const r = await runCli(['restore', file, '--data-dir', data]);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, message);
      assert.deepEqual(folderState(data), before, `${file}: the data folder is unchanged`);
    }
  });
});

describe('the CLI', () => {
  it('backs up a running gateway through its socket, and restores onto a running one, which restarts onto it', async (t) => {
    const a = await startGateway();
    t.after(() => a.stop());
    const rig = await populate(a);
    t.after(() => rig.close());
    const dir = tempDir('opencube-cli-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'nightly.backup');
    // A scene and an automation, counted in the summary.
    const made = await Promise.all(
      [
        { kind: 'scene', name: 'Night', actions: [{ type: 'notify', message: 'night' }] },
        {
          kind: 'automation',
          name: 'At seven',
          triggers: [{ type: 'time', at: '07:00' }],
          actions: [{ type: 'notify', message: 'morning' }],
        },
      ].map((body) => call(a.url, 'POST', rest('v2', 'opencube/automations'), { token: rig.token, body })),
    );
    for (const r of made) assert.equal(r.json?.error, 0, r.text);

    const backup = await runCli(['backup', file, '--data-dir', a.dataDir]);
    assert.equal(backup.code, 0, backup.stderr);
    assert.equal(
      backup.stdout,
      `backup written to ${file}: 4 devices (1 cameras), 1 tokens, 1 TTS engines, 1 cards, 3 security modes, 1 scenes, 1 automations\n`,
    );
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir), ['nightly.backup'], 'no partial file is left');
    assert.equal(readdirSync(a.dataDir).filter((f) => f.endsWith('.tmp')).length, 0, 'nor in the data folder');

    // A second gateway, running, with a device of its own; it restarts onto the backup.
    let restarts = 0;
    let b = await startGateway({ gatewayOptions: { onRestart: () => restarts++ } });
    t.after(() => b.stop());
    const own = b.token('other');
    await sendEvent(b, own, 'DiscoveryRequest', { endpoints: [] });
    const restore = await runCli(['restore', file, '--data-dir', b.dataDir]);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /4 devices \(1 cameras\), 1 tokens.*\n.*\nthe gateway restarts onto it now\n/);
    assert.equal(restarts, 1, 'the gateway was asked to restart once the answer was sent');
    // Until it restarts it serves what it had: its store is never replaced under it.
    assert.equal((await call(b.url, 'GET', rest('v2', 'devices'), { token: own })).json.error, 0);
    b = await b.restart();
    assert.deepEqual(await snapshot(b.url, rig.token), await snapshot(a.url, rig.token));
    assert.equal(
      (await call(b.url, 'GET', rest('v2', 'devices'), { token: own })).json.error,
      401,
      'its own token is gone',
    );
    assert.ok(existsSync(join(b.dataDir, 'gateway.db.before-restore')), 'the store there was is kept');
  });

  it('restores onto a gateway run by `opencube start`: the supervisor starts it again on the backup', async (t) => {
    const a = await startGateway();
    const token = a.token('kept-app');
    const synced = await sendEvent(a, token, 'DiscoveryRequest', {
      endpoints: [
        endpoint('kept-1', 'http://127.0.0.1:9/directive', {
          name: 'Kept lamp',
          capabilities: [{ capability: 'power', permission: '1100' }],
          state: { power: { powerState: 'on' } },
        }),
      ],
    });
    const serial = synced.json.payload.endpoints[0].serial_number as string;
    const dir = tempDir('opencube-supervised-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'a.backup');
    await a.gateway.backup(file);
    await a.stop();

    const data = join(dir, 'data');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const proc = spawnCli(startArgs(port, data, '--zigbee-mode', 'off', '--audio-sink', 'null', '--log-level', 'warn'));
    t.after(() => proc.killAll());
    await proc.waitForOutput(/opencube listening on /);
    assert.equal((await call(base, 'GET', rest('v2', 'devices'), { token })).json.error, 401, 'not yet restored');

    const r = await runCli(['restore', file, '--data-dir', data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\nthe gateway restarts onto it now\n/);
    await proc.waitForOutput(/opencube: restarting/);
    await proc.waitForOutput(/opencube listening on /, 2);
    const list = await call(base, 'GET', rest('v2', 'devices'), { token });
    assert.equal(list.json.error, 0, list.text);
    assert.deepEqual(
      list.json.data.device_list.map((d: any) => [d.serial_number, d.name]),
      [[serial, 'Kept lamp']],
    );
    proc.child.kill('SIGTERM');
    assert.equal((await proc.exited).code, 0);
  });

  it('says plainly what is wrong with a command, and keeps the store there was when restoring over it', async (t) => {
    const dir = tempDir('opencube-cli-errors-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const data = join(dir, 'data');
    const cases: [string[], RegExp][] = [
      [['backup'], /^opencube: usage: opencube backup FILE\n$/],
      [['restore'], /^opencube: usage: opencube restore FILE\n$/],
      [
        ['backup', join(dir, 'b.backup'), '--data-dir', data],
        /^opencube: no gateway runs on .*data and it holds no store\n$/,
      ],
      [
        ['backup', join(dir, 'no-such-folder', 'b.backup'), '--data-dir', data],
        /^opencube: no folder .*no-such-folder\n$/,
      ],
      [['backup', dir, '--data-dir', data], /^opencube: .* is a folder: give a file name\n$/],
      [['log-level', '--data-dir', data], /^opencube: no gateway is running on this data folder/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.stderr, message, args.join(' '));
    }

    // A stopped gateway's folder with a store of its own: restored over, the old store kept aside.
    const a = await startGateway();
    const token = a.token('from-a');
    const file = join(dir, 'a.backup');
    await a.gateway.backup(file);
    await a.stop();
    const b = await startGateway({ dataDir: data });
    const own = b.token('from-b');
    await b.stop();
    const r = await runCli(['restore', file, '--data-dir', data]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\nthe store there was is kept as .*data\/gateway\.db\.before-restore\n/);
    const c = await startGateway({ dataDir: data });
    t.after(() => c.stop());
    assert.equal((await call(c.url, 'GET', rest('v2', 'security'), { token })).json.error, 0);
    assert.equal((await call(c.url, 'GET', rest('v2', 'security'), { token: own })).json.error, 401);

    // A running gateway refuses a bad file through its socket, and goes on as it was.
    const bad = join(dir, 'bad.backup');
    writeFileSync(bad, 'no');
    const refused = await runCli(['restore', bad, '--data-dir', data]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^opencube: .*bad\.backup is not a backup of opencube \(not an SQLite database\)\n$/);
    assert.equal(existsSync(join(data, 'gateway.db.restore')), false, 'nothing is staged');
    assert.equal((await call(c.url, 'GET', rest('v2', 'security'), { token })).json.error, 0);
  });
});
