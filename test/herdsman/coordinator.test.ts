/**
 * The coordinator in `herdsman` mode: the network made once and kept (data folder, restarts, a
 * channel moved), a coordinator that stops answering and comes back, one that cannot be found,
 * a network file that cannot be read, and the network key kept out of the log.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CoordinatorPort } from '../../src/drivers/herdsman/index.ts';
import { call, eventually, listDevices, rest, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { COLOUR_LIGHT, FAKE_DEVICES, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';
import { type HerdsmanSetup, herdsmanSetup, startHerdsmanGateway } from './harness.ts';

const capturingLog = () => recordingLog('debug');

/** The forms a network key could be printed in. */
function keyForms(key: number[]): string[] {
  const hex = key.map((b) => b.toString(16).padStart(2, '0')).join('');
  return [hex, hex.toUpperCase(), key.join(','), key.join(', '), JSON.stringify(key)];
}

describe('the coordinator of herdsman mode', () => {
  let s: HerdsmanSetup;
  let g: TestGateway;
  let token: string;
  let events: EventStream;
  const networks: any[] = [];
  const captured = capturingLog();

  const all = () => listDevices(g.url, token);
  const find = async (model: string) => {
    const d = (await all()).find((x) => x.model === model);
    assert.ok(d, `${model} listed`);
    return d;
  };
  const networkFile = () => join(s.dataDir, 'zigbee', 'network.json');

  before(async () => {
    s = herdsmanSetup(FAKE_DEVICES, { overrides: { log_level: 'debug' } });
    const fake = s.driver.adapterFactory;
    s.driver.adapterFactory = async (network, ...rest) => {
      networks.push(structuredClone(network));
      return fake?.(network, ...rest);
    };
    g = await startHerdsmanGateway(s, { log: captured.log });
    token = g.token();
    events = await openEvents(g.url, token);
    await waitForValue(
      async () => ((await all()).filter((d) => d.online).length === 5 ? true : undefined),
      15_000,
      'five devices online',
    );
  });

  after(async () => {
    events?.close();
    await g?.stop();
    s?.net.close();
    if (s) rmSync(s.dataDir, { recursive: true, force: true });
  });

  it('makes the network once, at random, in a file only its owner can read', () => {
    const stored = JSON.parse(readFileSync(networkFile(), 'utf8'));
    assert.equal(statSync(networkFile()).mode & 0o777, 0o600);
    assert.ok(stored.pan_id >= 1 && stored.pan_id <= 0xfffe);
    assert.ok([15, 20, 25].includes(stored.channel));
    assert.equal(stored.network_key.length, 16);
    assert.equal(stored.ext_pan_id.length, 8);
    const n = networks[0];
    assert.deepEqual(
      [n.panID, n.extendedPanID, n.networkKey, n.channelList],
      [stored.pan_id, stored.ext_pan_id, stored.network_key, [stored.channel]],
    );
  });

  it('takes every device offline when the coordinator stops answering: 110005, D1 and D5 refused', async () => {
    s.net.unplug();
    await waitForValue(async () => ((await all()).every((d) => !d.online) ? true : undefined), 10_000, 'all offline');
    const light = await find(COLOUR_LIGHT.expectedModel);
    const r = await call(g.url, 'PUT', rest('v2', `devices/${light.serial_number}`), {
      token,
      body: { state: { power: { powerState: 'on' } } },
    });
    assert.equal(r.json.error, 110005, r.text);
    assert.match(r.json.message, /the Zigbee coordinator is not running/);
    const d1 = await call(g.url, 'PUT', rest('v2', 'devices/discovery'), {
      token,
      body: { enable: true, type: 'Zigbee' },
    });
    assert.equal(d1.json.error, 500, d1.text);
    assert.match(d1.json.message, /the Zigbee coordinator is not running/);
    const d5 = await call(g.url, 'DELETE', rest('v2', `devices/${light.serial_number}`), { token });
    assert.equal(d5.json.error, 110006, d5.text);
  });

  it('brings the devices back when the coordinator answers again, with the state they took meanwhile', async () => {
    // Switched at the wall while the gateway could not hear it.
    s.net.must(COLOUR_LIGHT.ieee).attributes(11, 'genOnOff').onOff = 1;
    s.net.plugIn();
    await waitForValue(
      async () => ((await all()).filter((d) => d.online).length === 5 ? true : undefined),
      15_000,
      'all back online',
    );
    await waitForValue(
      async () => ((await find(COLOUR_LIGHT.expectedModel)).state.power?.powerState === 'on' ? true : undefined),
      10_000,
      'the light read back on',
    );
    const sw = await find(TWO_GANG_SWITCH.expectedModel);
    const r = await call(g.url, 'PUT', rest('v2', `devices/${sw.serial_number}`), {
      token,
      body: { state: { toggle: { '1': { toggleState: 'on' } } } },
    });
    assert.equal(r.json.error, 0, r.text);
  });

  it('starts the same network after a gateway restart, with every device, name and state', async () => {
    const file = readFileSync(networkFile(), 'utf8');
    const light = await find(COLOUR_LIGHT.expectedModel);
    const renamed = await call(g.url, 'PUT', rest('v2', `devices/${light.serial_number}`), {
      token,
      body: { name: 'Kitchen' },
    });
    assert.equal(renamed.json.error, 0);
    const before = (await all()).map((d) => [d.serial_number, d.name]).sort();
    events.close();
    g = await g.restart();
    token = g.token();
    events = await openEvents(g.url, token);
    await waitForValue(
      async () => ((await all()).filter((d) => d.online).length === 5 ? true : undefined),
      15_000,
      'five devices online again',
    );
    assert.deepEqual((await all()).map((d) => [d.serial_number, d.name]).sort(), before);
    assert.equal(readFileSync(networkFile(), 'utf8'), file);
    const [first, last] = [networks[0], networks.at(-1)];
    assert.ok(networks.length >= 3);
    assert.deepEqual(last, first);
    assert.equal((await find(COLOUR_LIGHT.expectedModel)).state.power?.powerState, 'on');
  });

  it('never writes the network key into its log, even at debug', () => {
    const key = JSON.parse(readFileSync(networkFile(), 'utf8')).network_key as number[];
    const text = captured.text();
    assert.ok(text.includes('zigbee: coordinator started'), 'the log was captured');
    assert.ok(text.includes('"namespace":"zh:controller"'), "zigbee-herdsman's own debug lines were in it");
    for (const form of keyForms(key)) assert.equal(text.includes(form), false, `the key appears as ${form}`);
  });
});

describe('a coordinator that cannot start', () => {
  it('says how to find the coordinator when none is plugged in', async () => {
    const s = herdsmanSetup([], { overrides: { zigbee: { serial_port: '', adapter: 'auto' } } });
    s.driver.listPorts = () => [];
    const g = await startHerdsmanGateway(s);
    try {
      const token = g.token();
      const r = await waitForValue(
        async () => {
          const x = await call(g.url, 'PUT', rest('v2', 'devices/discovery'), {
            token,
            body: { enable: true, type: 'Zigbee' },
          });
          return /no Zigbee coordinator found/.test(x.json.message) ? x : undefined;
        },
        5000,
        'the reason',
      );
      assert.equal(r.json.error, 500);
      assert.match(r.json.message, /plug in a USB Zigbee coordinator, or set zigbee.serial_port/);
    } finally {
      await g.stop();
      s.net.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  });

  it('starts on the coordinator it recognises among the serial ports, with its firmware family', async () => {
    const s = herdsmanSetup([], { overrides: { zigbee: { serial_port: '', adapter: 'auto' } } });
    const ports: CoordinatorPort[] = [
      { path: '/dev/ttyS0', product: 'unknown USB serial device' },
      {
        path: '/dev/serial/by-id/usb-ITEAD_SONOFF_Zigbee_3.0_USB_Dongle_Plus_V2_20240122184111-if00',
        product: 'SONOFF Zigbee 3.0 USB Dongle Plus-E (ZBDongle-E)',
        adapter: 'ember',
      },
    ];
    s.driver.listPorts = () => ports;
    const fake = s.driver.adapterFactory;
    let serial: any;
    s.driver.adapterFactory = async (network, port, ...rest) => {
      serial = structuredClone(port);
      return fake?.(network, port, ...rest);
    };
    const g = await startHerdsmanGateway(s);
    try {
      await eventually(() => serial !== undefined, 5000, 'the coordinator started');
      assert.deepEqual(serial, { path: ports[1]?.path, adapter: 'ember' });
    } finally {
      await g.stop();
      s.net.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  });

  const broken: [string, string, RegExp][] = [
    ['not JSON', '{ "pan_id": ', /network\.json: not JSON/],
    ['a list', '[1, 2]', /not a JSON object/],
    ['no key', '{"pan_id": 1, "ext_pan_id": [1,2,3,4,5,6,7,8], "channel": 15}', /network_key must be 16 numbers 0-255/],
    [
      'a short key',
      JSON.stringify({ pan_id: 1, ext_pan_id: [1, 2, 3, 4, 5, 6, 7, 8], network_key: [1, 2], channel: 15 }),
      /network_key must be 16/,
    ],
    [
      'a key byte of 256',
      JSON.stringify({
        pan_id: 1,
        ext_pan_id: [1, 2, 3, 4, 5, 6, 7, 8],
        network_key: [...Array(15).fill(1), 256],
        channel: 15,
      }),
      /network_key must be 16 numbers 0-255/,
    ],
    [
      'PAN id 0xffff',
      JSON.stringify({
        pan_id: 65535,
        ext_pan_id: [1, 2, 3, 4, 5, 6, 7, 8],
        network_key: Array(16).fill(7),
        channel: 15,
      }),
      /pan_id must be an integer 1-65534/,
    ],
    [
      'channel 27',
      JSON.stringify({ pan_id: 7, ext_pan_id: [1, 2, 3, 4, 5, 6, 7, 8], network_key: Array(16).fill(7), channel: 27 }),
      /channel must be an integer 11-26/,
    ],
  ];
  for (const [what, content, reason] of broken)
    it(`keeps a network file holding ${what} as it is, and says what is wrong with it`, async () => {
      const s = herdsmanSetup([]);
      writeFileSync(join(s.dataDir, 'zigbee', 'network.json'), content);
      const g = await startHerdsmanGateway(s);
      try {
        const token = g.token();
        const r = await waitForValue(
          async () => {
            const x = await call(g.url, 'PUT', rest('v2', 'devices/discovery'), {
              token,
              body: { enable: true, type: 'Zigbee' },
            });
            return reason.test(x.json.message) ? x : undefined;
          },
          5000,
          'the reason',
        );
        assert.equal(r.json.error, 500);
        assert.match(r.json.message, /network\.json/);
        assert.equal(readFileSync(join(s.dataDir, 'zigbee', 'network.json'), 'utf8'), content);
      } finally {
        await g.stop();
        s.net.close();
        rmSync(s.dataDir, { recursive: true, force: true });
      }
    });
});
