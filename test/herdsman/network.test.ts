/**
 * The network of `herdsman` mode as data: its parameters made once and checked when read, the
 * key kept out of log lines, taking over a Zigbee2MQTT installation (`opencube zigbee import`),
 * and moving a gateway's devices between `z2m` and `herdsman` mode (serial numbers, names, tags).
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { importZigbee2mqtt, networkFromBackup } from '../../src/drivers/herdsman/import-z2m.ts';
import { keyRedactor } from '../../src/drivers/herdsman/log.ts';
import {
  loadNetworkParameters,
  NetworkParametersError,
  newNetworkParameters,
  parseNetworkParameters,
} from '../../src/drivers/herdsman/network-parameters.ts';
import { loadFixtures, startBroker } from '../../src/drivers/zigbee-sim/index.ts';
import { runCli } from '../helpers/cli.ts';
import { call, listDevices, rest, startGateway, tempDir, waitForValue } from '../helpers/foundation.ts';
import { openEvents } from '../helpers/sse.ts';
import { herdsmanDatabase } from '../z2m/fake/database.ts';
import { COLOUR_LIGHT, FAKE_DEVICES } from '../z2m/fake/devices.ts';
import { herdsmanSetup, startHerdsmanGateway, zh } from './harness.ts';

const dirs: string[] = [];
const dir = () => {
  const d = tempDir('opencube-network-');
  dirs.push(d);
  return d;
};
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const KEY = [1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 13];
const valid = { pan_id: 6754, ext_pan_id: [221, 221, 221, 221, 221, 221, 221, 221], network_key: KEY, channel: 11 };

describe('network parameters', () => {
  it('are random: two networks share no key and (almost surely) no PAN id', () => {
    const a = newNetworkParameters();
    const b = newNetworkParameters();
    assert.notDeepEqual(a.network_key, b.network_key);
    assert.notDeepEqual(a.ext_pan_id, b.ext_pan_id);
    for (const p of [a, b]) {
      assert.ok(p.pan_id >= 1 && p.pan_id <= 0xfffe);
      assert.ok([15, 20, 25].includes(p.channel));
    }
  });

  it('give PAN ids 1 and 0xfffe at the ends of the random range, never 0 or 0xffff', () => {
    const fixed = (b: number[]) => (n: number) => Buffer.from(n === 2 ? b : Array(n).fill(0));
    assert.equal(newNetworkParameters(11, fixed([0, 0])).pan_id, 1);
    assert.equal(newNetworkParameters(11, fixed([0xff, 0xfd])).pan_id, 0xfffe);
    assert.equal(newNetworkParameters(11, fixed([0xff, 0xfe])).pan_id, 1);
    assert.equal(newNetworkParameters(11, fixed([0xff, 0xff])).pan_id, 2);
  });

  it('are made once, kept owner-only, and read back the same', () => {
    const d = dir();
    const first = loadNetworkParameters(d, 0);
    assert.equal(first.created, true);
    assert.equal(statSync(join(d, 'network.json')).mode & 0o777, 0o600);
    const again = loadNetworkParameters(d, 0);
    assert.equal(again.created, false);
    assert.deepEqual(again.params, first.params);
  });

  it('move to the channel set, keeping the rest', () => {
    const d = dir();
    const first = loadNetworkParameters(d, 0).params;
    const channel = first.channel === 26 ? 11 : 26;
    const moved = loadNetworkParameters(d, channel);
    assert.equal(moved.channelChanged, true);
    assert.deepEqual(moved.params, { ...first, channel });
    assert.deepEqual(loadNetworkParameters(d, 0).params, { ...first, channel });
  });

  for (const channel of [1, 10, 27, -1])
    it(`refuse zigbee.channel ${channel}, naming the setting`, () => {
      assert.throws(
        () => loadNetworkParameters(dir(), channel),
        /zigbee.channel: -?\d+ is not a Zigbee channel \(11-26/,
      );
    });

  const broken: [string, unknown, RegExp][] = [
    ['an empty file', '', /not JSON/],
    ['null', null, /not a JSON object/],
    ['a string', '"key"', /not a JSON object/],
    ['no PAN id', { ...valid, pan_id: undefined }, /pan_id must be an integer 1-65534/],
    ['PAN id 0', { ...valid, pan_id: 0 }, /pan_id/],
    ['PAN id 1.5', { ...valid, pan_id: 1.5 }, /pan_id/],
    ['PAN id as text', { ...valid, pan_id: '6754' }, /pan_id/],
    [
      'an extended PAN id of 7 bytes',
      { ...valid, ext_pan_id: [1, 2, 3, 4, 5, 6, 7] },
      /ext_pan_id must be 8 numbers 0-255/,
    ],
    ['an extended PAN id as hex', { ...valid, ext_pan_id: 'dddddddddddddddd' }, /ext_pan_id must be 8/],
    ['a key of 17 bytes', { ...valid, network_key: [...KEY, 1] }, /network_key must be 16 numbers 0-255/],
    ['a key with -1', { ...valid, network_key: [...KEY.slice(1), -1] }, /network_key/],
    ['a key with 2.5', { ...valid, network_key: [...KEY.slice(1), 2.5] }, /network_key/],
    ['a key with a string', { ...valid, network_key: [...KEY.slice(1), '1'] }, /network_key/],
    ['no channel', { ...valid, channel: undefined }, /channel must be an integer 11-26/],
    ['channel 0', { ...valid, channel: 0 }, /channel/],
  ];
  for (const [what, content, reason] of broken)
    it(`refuse a file holding ${what}, naming the file and the field but no value`, () => {
      const text = typeof content === 'string' ? content : JSON.stringify(content);
      const err = (() => {
        try {
          parseNetworkParameters(text, '/data/zigbee/network.json');
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      assert.ok(err instanceof NetworkParametersError, 'refused');
      assert.match(err.message, /^\/data\/zigbee\/network\.json: /);
      assert.match(err.message, reason);
      assert.equal(err.message.includes(KEY.join(',')), false);
    });
});

describe('the key in log lines', () => {
  const redact = keyRedactor(KEY);
  const hex = Buffer.from(KEY).toString('hex');
  const lines = [
    `network key ${hex}`,
    `network key ${hex.toUpperCase()}!`,
    `networkKey:[${KEY.join(',')}]`,
    `key=${KEY.join(', ')}`,
    `key ${KEY.map((b) => `0x${b.toString(16).padStart(2, '0')}`).join(',')}`,
    `key ${KEY.map((b) => `0x${b.toString(16)}`).join(', ')}`,
  ];
  for (const line of lines)
    it(`is replaced in ${JSON.stringify(line.slice(0, 40))}...`, () => {
      const out = redact(line);
      assert.match(out, /\[network key\]/);
      assert.equal(out.includes(hex), false);
      assert.equal(out.includes(KEY.slice(0, 8).join(',')), false);
    });

  it('leaves lines without it as they are, numbers that merely start like it included', () => {
    const line = `frame [${KEY.slice(0, 15).join(',')},99] and ${hex.slice(0, 30)}`;
    assert.equal(redact(line), line);
    assert.equal(redact(`ids ${KEY.join(',')}7`), `ids ${KEY.join(',')}7`);
  });
});

/** An open coordinator backup as Zigbee2MQTT writes it (values made up). */
const backup = (over: Record<string, unknown> = {}) => ({
  metadata: { format: 'zigpy/open-coordinator-backup', version: 1, source: 'zigbee-herdsman@10.9.2', internal: {} },
  coordinator_ieee: '00124b00fa4e0001',
  pan_id: '1a62',
  extended_pan_id: '0011223344556677',
  nwk_update_id: 0,
  security_level: 5,
  channel: 20,
  channel_mask: [20],
  network_key: { key: Buffer.from(KEY).toString('hex'), sequence_number: 0, frame_counter: 1234 },
  devices: [],
  ...over,
});

/** A Zigbee2MQTT data folder with the fake's paired devices. */
function zigbee2mqttFolder(content: Record<string, unknown> = backup()): string {
  const d = dir();
  writeFileSync(join(d, 'coordinator_backup.json'), JSON.stringify(content));
  writeFileSync(join(d, 'database.db'), herdsmanDatabase(FAKE_DEVICES, zh));
  writeFileSync(join(d, 'configuration.yaml'), 'homeassistant: false\n');
  return d;
}

describe('taking over a Zigbee2MQTT installation', () => {
  it('reads the network of its coordinator backup in the forms of network.json', () => {
    assert.deepEqual(networkFromBackup(JSON.stringify(backup()), 'b.json'), {
      pan_id: 0x1a62,
      ext_pan_id: [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77],
      network_key: KEY,
      channel: 20,
    });
  });

  const broken: [string, unknown, RegExp][] = [
    ['not JSON', '{', /not JSON/],
    ['another format', { ...backup(), metadata: { format: 'zigbee2mqtt' } }, /not an open coordinator backup/],
    ['no metadata', { ...backup(), metadata: undefined }, /not an open coordinator backup/],
    ['PAN id 0', backup({ pan_id: '0' }), /pan_id must be 1-4 hex digits, 0001-fffe/],
    ['PAN id ffff', backup({ pan_id: 'ffff' }), /pan_id/],
    ['PAN id as a number', backup({ pan_id: 6754 }), /pan_id/],
    ['a short extended PAN id', backup({ extended_pan_id: '00112233' }), /extended_pan_id must be 16 hex digits/],
    [
      'a key that is not hex',
      backup({ network_key: { key: 'zz'.repeat(16) } }),
      /network_key.key must be 32 hex digits/,
    ],
    ['no key', backup({ network_key: undefined }), /network_key.key/],
    ['channel 10', backup({ channel: 10 }), /channel must be an integer 11-26/],
  ];
  for (const [what, content, reason] of broken)
    it(`refuses a backup with ${what}`, () => {
      const text = typeof content === 'string' ? content : JSON.stringify(content);
      assert.throws(() => networkFromBackup(text, 'b.json'), reason);
    });

  it('copies the database and the backup, and writes the network, from the command line', async () => {
    const from = zigbee2mqttFolder();
    const data = dir();
    const r = await runCli(['zigbee', 'import', from, '--data-dir', data]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /imported the network of .*: 5 devices, channel 20, PAN id 6754/);
    assert.equal(r.stdout.includes(Buffer.from(KEY).toString('hex')), false);
    const zigbee = join(data, 'zigbee');
    assert.deepEqual(JSON.parse(readFileSync(join(zigbee, 'network.json'), 'utf8')), {
      pan_id: 0x1a62,
      ext_pan_id: [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77],
      network_key: KEY,
      channel: 20,
    });
    assert.equal(readFileSync(join(zigbee, 'database.db'), 'utf8'), readFileSync(join(from, 'database.db'), 'utf8'));
    assert.ok(readFileSync(join(zigbee, 'coordinator_backup.json'), 'utf8').includes('open-coordinator-backup'));
  });

  it('refuses to replace a network the gateway has already, and leaves it as it was', async () => {
    const data = dir();
    const zigbee = join(data, 'zigbee');
    loadNetworkParameters(zigbee, 0);
    const before = readFileSync(join(zigbee, 'network.json'), 'utf8');
    const r = await runCli(['zigbee', 'import', zigbee2mqttFolder(), '--data-dir', data]);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /cannot import: .*network\.json exists: this gateway has a Zigbee network of its own already/,
    );
    assert.equal(readFileSync(join(zigbee, 'network.json'), 'utf8'), before);
  });

  it('says which file is missing from a folder that is not Zigbee2MQTT’s', () => {
    const empty = dir();
    assert.throws(
      () => importZigbee2mqtt(empty, join(dir(), 'zigbee')),
      /coordinator_backup\.json not found: give the data folder of Zigbee2MQTT/,
    );
    const noDatabase = dir();
    writeFileSync(join(noDatabase, 'coordinator_backup.json'), JSON.stringify(backup()));
    assert.throws(() => importZigbee2mqtt(noDatabase, join(dir(), 'zigbee')), /database\.db not found/);
    const badDatabase = zigbee2mqttFolder();
    writeFileSync(join(badDatabase, 'database.db'), '{"id":1}\nnot json\n');
    const to = join(dir(), 'zigbee');
    assert.throws(() => importZigbee2mqtt(badDatabase, to), /database\.db: line 2 is not JSON/);
    assert.throws(() => readFileSync(join(to, 'network.json')), /ENOENT/);
  });

  it('starts the coordinator on the imported network, with the imported devices', async () => {
    const s = herdsmanSetup(FAKE_DEVICES);
    dirs.push(s.dataDir);
    rmSync(join(s.dataDir, 'zigbee'), { recursive: true });
    importZigbee2mqtt(zigbee2mqttFolder(), join(s.dataDir, 'zigbee'));
    const fake = s.driver.adapterFactory;
    let network: any;
    s.driver.adapterFactory = async (n, ...rest) => {
      network = structuredClone(n);
      return fake?.(n, ...rest);
    };
    const g = await startHerdsmanGateway(s);
    try {
      const token = g.token();
      await waitForValue(
        async () => ((await listDevices(g.url, token)).length === 5 ? true : undefined),
        15_000,
        'five devices',
      );
      assert.deepEqual(
        [network.panID, network.extendedPanID, network.networkKey, network.channelList],
        [0x1a62, [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77], KEY, [20]],
      );
    } finally {
      await g.stop();
      s.net.close();
    }
  });
});

describe('moving a gateway between z2m and herdsman mode', () => {
  it('keeps the serial number, name and tags of a device, both ways', async () => {
    const broker = await startBroker();
    const z2m = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    const fixture = loadFixtures().find((f) => f.model === COLOUR_LIGHT.expectedModel);
    assert.ok(fixture);
    await z2m.publishAsync('zigbee2mqtt/bridge/state', JSON.stringify({ state: 'online' }), { retain: true });
    await z2m.publishAsync(
      'zigbee2mqtt/bridge/devices',
      JSON.stringify([
        {
          ieee_address: COLOUR_LIGHT.ieee,
          friendly_name: 'kitchen_light',
          type: 'Router',
          interview_state: 'SUCCESSFUL',
          software_build_id: '1.50.2_r30933',
          definition: {
            model: fixture.model,
            vendor: fixture.vendor,
            description: fixture.description,
            exposes: fixture.exposes,
          },
        },
      ]),
      { retain: true },
    );
    const s = herdsmanSetup(FAKE_DEVICES);
    dirs.push(s.dataDir);
    const z2mMode = { overrides: { zigbee: { mode: 'z2m', mqtt_url: broker.url } }, dataDir: s.dataDir };
    try {
      let g = await startGateway(z2mMode);
      let token = g.token();
      const light = await waitForValue(async () => (await listDevices(g.url, token))[0], 10_000, 'the light');
      const named = await call(g.url, 'PUT', rest('v2', `devices/${light.serial_number}`), {
        token,
        body: { name: 'Kitchen', tags: { room: 'kitchen' } },
      });
      assert.equal(named.json.error, 0, named.text);
      await g.stop();

      g = await startHerdsmanGateway(s);
      token = g.token();
      const events = await openEvents(g.url, token);
      try {
        const list = await waitForValue(
          async () => {
            const l = await listDevices(g.url, token);
            return l.length === 5 && l.every((d) => d.online) ? l : undefined;
          },
          15_000,
          'five devices online',
        );
        const same = list.find((d) => d.serial_number === light.serial_number);
        assert.ok(same, 'the light kept its serial number');
        assert.deepEqual(
          [same.name, same.tags.room, same.model, same.online],
          ['Kitchen', 'kitchen', fixture.model, true],
        );
        const added = events.of('addDevice').map((e) => e.data.payload.serial_number);
        assert.equal(added.includes(light.serial_number), false, 'not added again');
        assert.equal(added.length, 4);
      } finally {
        events.close();
        await g.stop();
      }

      g = await startGateway(z2mMode);
      token = g.token();
      const back = await waitForValue(
        async () => (await listDevices(g.url, token)).find((d) => d.serial_number === light.serial_number && d.online),
        10_000,
        'the light back in z2m mode',
      );
      assert.deepEqual([back.name, back.tags.room], ['Kitchen', 'kitchen']);
      await g.stop();
    } finally {
      s.net.close();
      await z2m.endAsync(true);
      await broker.close();
    }
  });
});
