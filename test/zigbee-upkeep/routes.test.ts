/**
 * Firmware updates, groups, bindings and the network map through the gateway's routes, as a
 * client sees them: a gateway in `sim` mode (every captured model on the network), the Open API
 * under `zigbee/` with a token and its envelope, the console's API with a session and HTTP
 * statuses, and both event streams. One declaration serves both APIs, so each step is tried on
 * one and its refusals on both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ErrorCode } from '../../src/catalog/errors.ts';
import { type ConsoleClient, consoleClient } from '../console/client.ts';
import {
  call,
  listDevices,
  openStream,
  type RawStream,
  rest,
  startGateway,
  type TestGateway,
  waitForValue,
} from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';

const PASSWORD = 'a console password';
const ZIGBEE_EVENTS = ['zigbee#firmware', 'zigbee#group', 'zigbee#bindings', 'zigbee#networkMap'];

let g: TestGateway;
let token: string;
let c: ConsoleClient;
let sse: EventStream;
let consoleEvents: RawStream;
let devices: any[];

const api = (method: string, path: string, body?: unknown) =>
  call(g.url, method, rest('v2', `zigbee/${path}`), { token, ...(body !== undefined ? { body } : {}) });
/** The data of a success of the Open API (fails the test on a failure, with its message). */
async function ok(method: string, path: string, body?: unknown): Promise<any> {
  const r = await api(method, path, body);
  assert.equal(r.json?.error, 0, `${method} ${path}: ${r.text}`);
  return r.json.data;
}
const byModel = (model: string) => {
  const d = devices.find((x) => x.model === model);
  assert.ok(d, `the simulated network has a ${model}`);
  return d;
};
const group = (ref: string) => encodeURIComponent(ref);

before(async () => {
  g = await startGateway({
    overrides: { zigbee: { mode: 'sim', sim_devices: 33 } },
    gatewayOptions: { drivers: { zigbee: { sim: { otaStepMs: 150, mapStepMs: 5, reportIntervalMs: 0 } } } },
  });
  token = g.token('upkeep');
  await g.gateway.setConsolePassword(PASSWORD);
  c = consoleClient(g.url);
  assert.equal((await c.login(PASSWORD)).status, 200);
  devices = await waitForValue(async () => {
    const list = await listDevices(g.url, token);
    return list.length >= 33 && list.every((d) => d.online) && list;
  }, 30_000);
  sse = await openEvents(g.url, token, 'v2', ZIGBEE_EVENTS);
  consoleEvents = await openStream(g.url, '/console/api/events', { cookie: `opencube_session=${c.cookie}` });
});

after(async () => {
  sse?.close();
  consoleEvents?.close();
  await g?.stop();
});

/** The data of a console event of `name` whose JSON `match` accepts, once it has come. */
async function consoleEvent(name: string, match: (data: any) => boolean): Promise<any> {
  const found = () =>
    consoleEvents
      .events()
      .filter((f) => f.event === name)
      .map((f) => JSON.parse(f.data[0] as string))
      .find(match);
  await consoleEvents.waitFor(() => found() !== undefined, 20_000);
  return found();
}

describe('the Zigbee routes', () => {
  test('are served on both APIs: behind a token on the Open API (v1 and v2) and behind a session on the console', async () => {
    const open = await ok('GET', 'networks');
    assert.deepEqual(open.networks, [{ network: 'zigbee2mqtt', driver: 'zigbee2mqtt', reachable: true }]);
    const v1 = await call(g.url, 'GET', rest('v1', 'zigbee/networks'), { token });
    assert.deepEqual(v1.json.data, open);
    const anonymous = await call(g.url, 'GET', rest('v2', 'zigbee/networks'));
    assert.deepEqual([anonymous.status, anonymous.json.error], [200, 401]);
    const mine = await c.call('GET', '/zigbee/networks');
    assert.deepEqual([mine.status, mine.body], [200, open]);
    assert.equal((await consoleClient(g.url).call('GET', '/zigbee/networks')).status, 401);
  });

  test('check a light for firmware, update it with its progress on both streams, and show the new version in D3', async () => {
    const light = byModel('LED1836G9');
    const before = await ok('GET', `firmware/${light.serial_number}`);
    assert.equal(before.firmware.supported, true);
    assert.equal(before.firmware.state, 'unknown');

    const checked = await ok('POST', `firmware/${light.serial_number}/check`);
    assert.equal(checked.firmware.state, 'available');
    assert.ok(checked.firmware.latest_version > checked.firmware.installed_version, JSON.stringify(checked));

    const started = await ok('POST', `firmware/${light.serial_number}/update`);
    assert.equal(started.firmware.state, 'updating');
    const progress = await sse.waitFor(
      (e) =>
        e.name === 'zigbee#v2#firmware' &&
        e.data.payload.serial_number === light.serial_number &&
        e.data.payload.state === 'updating' &&
        e.data.payload.progress >= 20,
      20_000,
    );
    assert.equal(typeof progress.data.payload.remaining, 'number', 'a time remaining is told');
    const during = await ok('GET', `firmware/${light.serial_number}`);
    assert.equal(during.firmware.state, 'updating');
    assert.ok(during.firmware.progress >= 20, JSON.stringify(during));
    await consoleEvent(
      'zigbee#firmware',
      (d) => d.payload.serial_number === light.serial_number && d.payload.state === 'updating',
    );

    const updated = await sse.waitFor(
      (e) =>
        e.name === 'zigbee#v2#firmware' &&
        e.data.payload.serial_number === light.serial_number &&
        e.data.payload.state === 'updated',
      20_000,
    );
    assert.equal(updated.data.payload.installed_version, checked.firmware.latest_version);
    const after = await ok('GET', `firmware/${light.serial_number}`);
    assert.deepEqual(
      [after.firmware.state, after.firmware.installed_version],
      ['idle', checked.firmware.latest_version],
    );
    const d3 = (await listDevices(g.url, token)).find((d) => d.serial_number === light.serial_number);
    assert.equal(d3.firmware_version, updated.data.payload.firmware_version);
    assert.notEqual(d3.firmware_version, light.firmware_version);

    const again = await api('POST', `firmware/${light.serial_number}/update`);
    assert.equal(again.json.error, ErrorCode.INVALID_PARAMETERS);
    assert.match(again.json.message, /^serial_number: there is no newer firmware for /);
  });

  test('cancel an update that runs and one that waits: both devices keep their firmware, the image stays available', async () => {
    const colour = byModel('9290012573A');
    const plug = byModel('ZNCZ02LM');
    for (const d of [colour, plug])
      assert.equal((await ok('POST', `firmware/${d.serial_number}/check`)).firmware.state, 'available');
    const first = await ok('POST', `firmware/${colour.serial_number}/update`);
    assert.equal(first.firmware.state, 'updating');
    const second = await ok('POST', `firmware/${plug.serial_number}/update`);
    assert.deepEqual([second.firmware.state, second.firmware.position], ['queued', 1]);

    const dequeued = await c.call('DELETE', `/zigbee/firmware/${plug.serial_number}/update`);
    assert.equal(dequeued.status, 200, JSON.stringify(dequeued.body));
    assert.equal(dequeued.body.firmware.state, 'available');
    await sse.waitFor(
      (e) =>
        e.name === 'zigbee#v2#firmware' &&
        e.data.payload.serial_number === plug.serial_number &&
        e.data.payload.state === 'cancelled',
    );

    const stopped = await ok('DELETE', `firmware/${colour.serial_number}/update`);
    assert.equal(stopped.firmware.state, 'available');
    assert.equal(stopped.firmware.installed_version, first.firmware.installed_version);
    await sse.waitFor(
      (e) =>
        e.name === 'zigbee#v2#firmware' &&
        e.data.payload.serial_number === colour.serial_number &&
        e.data.payload.state === 'cancelled',
    );
    const d3 = (await listDevices(g.url, token)).find((d) => d.serial_number === colour.serial_number);
    assert.equal(d3.firmware_version, colour.firmware_version);
    const none = await api('DELETE', `firmware/${colour.serial_number}/update`);
    assert.equal(none.json.error, ErrorCode.INVALID_PARAMETERS);
    assert.match(none.json.message, /^serial_number: no update of ".+" is queued or running$/);
  });

  test('check every device that takes updates at once, and list their firmware', async () => {
    const r = await ok('POST', 'firmware/check');
    const takes = (await ok('GET', 'firmware')).firmware.filter((f: any) => f.supported);
    assert.deepEqual(
      [...r.serial_numbers].sort(),
      takes.map((f: any) => f.serial_number).sort(),
      'every online device that takes updates',
    );
    const last = r.serial_numbers.at(-1);
    await sse.waitFor(
      (e) =>
        e.name === 'zigbee#v2#firmware' &&
        e.data.payload.serial_number === last &&
        ['idle', 'available', 'failed'].includes(e.data.payload.state),
      60_000,
    );
  });

  test('make a group of two lights: one device in D3 that switches both, renamed, a member removed and added, then deleted', async () => {
    const a = byModel('LED1836G9');
    const b = byModel('LED2201G8');
    const made = await ok('POST', 'groups', {
      name: 'Living room',
      members: [{ serial_number: a.serial_number }, { serial_number: b.serial_number }],
    });
    const gr = made.group;
    assert.equal(gr.name, 'Living room');
    assert.deepEqual(gr.members.map((m: any) => m.serial_number).sort(), [a.serial_number, b.serial_number].sort());
    await sse.waitFor((e) => e.name === 'zigbee#v2#group' && e.data.payload.action === 'created');
    const listed = await waitForValue(async () =>
      (await listDevices(g.url, token)).find((d) => d.serial_number === gr.serial_number),
    );
    assert.equal(listed.model, 'Zigbee group');
    assert.ok(listed.capabilities.some((x: any) => x.capability === 'brightness'));

    // D4 to the group's device: one group command, and both lights follow.
    const on = await call(g.url, 'PUT', rest('v2', `devices/${gr.serial_number}`), {
      token,
      body: { state: { power: { powerState: 'on' }, brightness: { brightness: 30 } } },
    });
    assert.equal(on.json.error, 0, on.text);
    await waitForValue(async () => {
      const list = await listDevices(g.url, token);
      return [a, b].every((m) => {
        const s = list.find((d) => d.serial_number === m.serial_number)?.state;
        return s?.power?.powerState === 'on' && s?.brightness?.brightness === 30;
      });
    });

    const renamed = await c.call('PUT', `/zigbee/groups/${group(gr.group)}`, { name: 'Lounge' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.group.name, 'Lounge');
    const byDevice = await ok('GET', `groups/${group(gr.serial_number)}`);
    assert.equal(byDevice.group.name, 'Lounge');

    const less = await ok('DELETE', `groups/${group(gr.group)}/members/${b.serial_number}`);
    assert.deepEqual(
      less.group.members.map((m: any) => m.serial_number),
      [a.serial_number],
    );
    const more = await ok('POST', `groups/${group(gr.group)}/members`, { serial_number: b.serial_number });
    assert.equal(more.group.members.length, 2);

    const gone = await ok('DELETE', `groups/${group(gr.group)}`);
    assert.equal(gone.group.group, gr.group);
    await waitForValue(async () =>
      (await listDevices(g.url, token)).every((d) => d.serial_number !== gr.serial_number),
    );
    const missing = await api('GET', `groups/${group(gr.group)}`);
    assert.deepEqual(
      [missing.json.error, missing.json.message],
      [ErrorCode.DEVICE_NOT_FOUND, `group: no group "${gr.group}"`],
    );
  });

  test('group one channel of a two-gang switch, and refuse a member that does not exist or shares nothing, on both APIs', async () => {
    const wall = byModel('QBKG24LM');
    const remote = byModel('E1524/E1810');
    const made = await ok('POST', 'groups', {
      name: 'Hall',
      members: [{ serial_number: wall.serial_number, channel: '1' }],
    });
    assert.deepEqual(
      made.group.members.map((m: any) => m.channel),
      ['1'],
    );
    const ref = group(made.group.group);

    const nobody = await api('POST', `groups/${ref}/members`, { serial_number: 'no-such-device' });
    assert.deepEqual(
      [nobody.json.error, nobody.json.message],
      [ErrorCode.DEVICE_NOT_FOUND, 'serial_number: no device "no-such-device"'],
    );
    const nobodyConsole = await c.call('POST', `/zigbee/groups/${ref}/members`, { serial_number: 'no-such-device' });
    assert.deepEqual(
      [nobodyConsole.status, nobodyConsole.body],
      [404, { error: 'serial_number: no device "no-such-device"' }],
    );

    const sensor = byModel('MCCGQ11LM');
    const noGroups = await c.call('POST', `/zigbee/groups/${ref}/members`, { serial_number: sensor.serial_number });
    assert.equal(noGroups.status, 400);
    assert.match(noGroups.body.error, /^serial_number: ".+" cannot be in a group: it has no Groups cluster/);
    const remoteToo = await api('POST', `groups/${ref}/members`, { serial_number: remote.serial_number });
    assert.equal(remoteToo.json.error, ErrorCode.INVALID_PARAMETERS);

    const channel = await api('POST', `groups/${ref}/members`, { serial_number: wall.serial_number, channel: '7' });
    assert.equal(channel.json.error, ErrorCode.INVALID_PARAMETERS);
    assert.match(channel.json.message, /^channel: "7" is not a channel of /);
    const removed = await ok('DELETE', `groups/${ref}/members/${wall.serial_number}?channel=1`);
    assert.deepEqual(removed.group.members, []);
    await ok('DELETE', `groups/${ref}`);
  });

  test('bind the remote to a light, list it, refuse clusters that do not match, then unbind', async () => {
    const remote = byModel('E1524/E1810');
    const light = byModel('9290012573A');
    const thermostat = byModel('SPZB0001');
    const bound = await ok('POST', 'bind', {
      source: remote.serial_number,
      target: light.serial_number,
      clusters: ['genOnOff'],
    });
    const mine = (b: any) => b.cluster === 'genOnOff' && b.target.serial_number === light.serial_number;
    assert.ok(bound.bindings.some(mine), JSON.stringify(bound.bindings));
    const listed = await c.call('GET', `/zigbee/bindings/${remote.serial_number}`);
    assert.equal(listed.status, 200);
    assert.ok(listed.body.bindings.some(mine));
    await sse.waitFor((e) => e.name === 'zigbee#v2#bindings' && e.data.payload.serial_number === remote.serial_number);

    const mismatch = await api('POST', 'bind', {
      source: remote.serial_number,
      target: thermostat.serial_number,
      clusters: ['hvacThermostat'],
    });
    assert.equal(mismatch.json.error, ErrorCode.INVALID_PARAMETERS);
    assert.match(mismatch.json.message, /^clusters\.0: hvacThermostat does not match: /);

    const undone = await ok('POST', 'unbind', { source: remote.serial_number, target: light.serial_number });
    assert.ok(!undone.bindings.some(mine), JSON.stringify(undone.bindings));
  });

  test('scan the map on demand (one scan at a time), read it with its devices, and read it again after a restart', async () => {
    const none = await api('GET', 'map');
    assert.deepEqual(
      [none.json.error, none.json.message],
      [ErrorCode.NOT_FOUND, 'no map of zigbee2mqtt yet: scan it first'],
    );
    const noneConsole = await c.call('GET', '/zigbee/map');
    assert.equal(noneConsole.status, 404);

    const started = await ok('POST', 'map/scan', { routes: true });
    assert.deepEqual(
      [started.scan.network, started.scan.state, started.scan.routes],
      ['zigbee2mqtt', 'scanning', true],
    );
    const second = await c.call('POST', '/zigbee/map/scan', {});
    assert.equal(second.status, 400);
    assert.match(second.body.error, /^network: a scan of zigbee2mqtt has run since .+: wait for it to finish$/);
    await sse.waitFor((e) => e.name === 'zigbee#v2#networkMap' && e.data.payload.state === 'done', 30_000);
    await consoleEvent('zigbee#networkMap', (d) => d.payload.state === 'done');

    const { map } = await ok('GET', 'map');
    assert.equal(map.network, 'zigbee2mqtt');
    assert.ok(map.nodes.some((n: any) => n.type === 'Coordinator'));
    const light = byModel('LED1836G9');
    const node = map.nodes.find((n: any) => n.serial_number === light.serial_number);
    assert.ok(node, 'the light is a node, named by its serial number');
    assert.equal(node.online, true);
    assert.ok(map.links.every((l: any) => l.lqi >= 0 && l.lqi <= 255));
    assert.ok(
      map.links.some(
        (l: any) => l.target.ieee_address === node.ieee_address || l.source.ieee_address === node.ieee_address,
      ),
    );

    g = await g.restart();
    token = g.token('upkeep');
    const kept = await waitForValue(async () => {
      const r = await api('GET', 'map');
      return r.json.error === 0 && r.json.data.map;
    });
    assert.equal(kept.scanned_at, map.scanned_at);
    assert.equal(kept.nodes.length, map.nodes.length);
    sse.close();
    consoleEvents.close();
  });
});
