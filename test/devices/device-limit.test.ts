/**
 * The most devices a gateway keeps (setting `devices.max`, docs/benchmarks.md): past it a new
 * device is refused with a clear error (the third-party protocol's, the envelope's, a warning for
 * a device that joins the Zigbee network), nothing kept is touched, and the gateway goes on.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cameraBody } from '../camera/bodies.ts';
import { makeJpegs, startEsp32 } from '../camera/servers.ts';
import { call, eventually, listDevices, rest, startGateway, tempDir } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

const SERVICE = 'http://127.0.0.1:9/directive';
const thirds = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => endpoint(`${prefix}-${i}`, SERVICE));

describe('the most devices a gateway keeps', () => {
  it('refuses a DiscoveryRequest that would pass it, all or none, and keeps updating the devices it has', async (t) => {
    const dataDir = tempDir();
    const g = await startGateway({ dataDir, overrides: { devices: { max: 5 } } });
    t.after(() => g.stop());
    const token = g.token('limit');
    const discover = (endpoints: unknown[]) => sendEvent(g, token, 'DiscoveryRequest', { endpoints });
    const listed = async () => (await listDevices(g.url, token)).map((d) => d.third_serial_number).sort();

    const first = await discover(thirds('a', 3));
    assert.equal(first.json.payload.endpoints.length, 3, first.text);

    // Three new ones would make six: none is added.
    const over = await discover([...thirds('a', 3), ...thirds('b', 3)]);
    assert.equal(over.status, 200);
    assert.equal(over.json.header.name, 'ErrorResponse');
    assert.equal(over.json.payload.type, 'INVALID_PARAMETERS');
    assert.equal(
      over.json.payload.description,
      'payload.endpoints: 3 new devices: the gateway keeps at most 5 devices (setting devices.max): remove some first',
    );
    assert.deepEqual(await listed(), ['a-0', 'a-1', 'a-2']);

    // The devices it has are updated at the limit as below it; two more fill it.
    const fill = await discover([...thirds('a', 3), ...thirds('b', 2)]);
    assert.equal(fill.json.payload.endpoints.length, 5, fill.text);
    const again = await discover(thirds('a', 3).map((e) => ({ ...e, name: `Renamed ${e.third_serial_number}` })));
    assert.equal(again.json.payload.endpoints.length, 3, again.text);
    const one = await discover(thirds('c', 1));
    assert.equal(one.json.payload.type, 'INVALID_PARAMETERS');
    assert.match(one.json.payload.description, /^payload\.endpoints: 1 new devices: the gateway keeps at most 5 /);
    assert.deepEqual(await listed(), ['a-0', 'a-1', 'a-2', 'b-0', 'b-1']);

    // Room made by removing one is taken again.
    const [gone] = await listDevices(g.url, token);
    const removed = await call(g.url, 'DELETE', rest('v2', `devices/${gone.serial_number}`), { token });
    assert.equal(removed.json.error, 0, removed.text);
    assert.equal((await discover(thirds('c', 1))).json.payload.endpoints.length, 1);

    // A gateway started with a lower limit keeps every device it had, and adds none.
    await g.stop();
    const lower = await startGateway({ dataDir, overrides: { devices: { max: 2 } } });
    t.after(() => lower.stop());
    const token2 = lower.token('limit');
    assert.equal((await listDevices(lower.url, token2)).length, 5);
    const refused = await sendEvent(lower, token2, 'DiscoveryRequest', { endpoints: thirds('d', 1) });
    assert.equal(refused.json.payload.type, 'INVALID_PARAMETERS');
    assert.equal((await listDevices(lower.url, token2)).length, 5);
  });

  it('answers a camera past it with the envelope error, the camera not added', async (t) => {
    const esp = await startEsp32(makeJpegs(320, 240, 3));
    t.after(() => esp.close());
    const g = await startGateway({ overrides: { devices: { max: 1 } } });
    t.after(() => g.stop());
    const token = g.token('limit');
    await sendEvent(g, token, 'DiscoveryRequest', { endpoints: thirds('a', 1) });
    const r = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(`${esp.base}/stream`) });
    assert.equal(r.json.error, 110017, r.text);
    assert.equal(r.json.message, 'the gateway keeps at most 1 devices (setting devices.max): remove some first');
    assert.equal((await listDevices(g.url, token)).length, 1);
  });

  it('lists Zigbee devices that join past it only once there is room, with a warning, and goes on', async (t) => {
    const recorded = recordingLog('warn');
    const g = await startGateway({
      overrides: { zigbee: { mode: 'sim' }, devices: { max: 10 } },
      gatewayOptions: { log: recorded.log },
    });
    t.after(() => g.stop());
    const token = g.token('limit');
    const registry = g.gateway.devices.registry;
    assert.ok(g.gateway.settings.zigbee.sim_devices > 10, 'the simulated network has more devices than the limit');
    await eventually(
      () => recorded.lines.some((l) => l.includes('zigbee2mqtt: device not added')),
      30_000,
      'a warning for a device not added',
    );
    assert.equal(registry.size, 10);
    const warning = JSON.parse(recorded.lines.find((l) => l.includes('zigbee2mqtt: device not added')) as string);
    assert.equal(warning.reason, 'the gateway keeps at most 10 devices (setting devices.max): remove some first');
    // The gateway goes on: ready, listing the devices it kept.
    assert.equal((await call(g.url, 'GET', '/ready')).status, 200);
    const devices = await listDevices(g.url, token);
    assert.equal(devices.length, 10);
  });
});
