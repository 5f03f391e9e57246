/**
 * `GET /health` and `GET /ready` (issue 13): liveness always; readiness from the store and each
 * configured driver, turning false with the reason when the MQTT broker of Zigbee2MQTT goes away
 * or Zigbee2MQTT says it is offline, and true again when they are back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import mqtt from 'mqtt';
import { type Broker, startBroker } from '../../src/drivers/zigbee-sim/broker.ts';
import { call, startGateway, waitForValue } from '../helpers/foundation.ts';
import { metricValue, scrape } from './metrics-text.ts';

/** A stand-in for Zigbee2MQTT at its MQTT boundary: it says its bridge state and an empty device list. */
async function zigbee2mqtt(url: string, state: 'online' | 'offline') {
  const client = await mqtt.connectAsync(url, { clientId: `z2m-standin-${Math.random()}` });
  await client.publishAsync('zigbee2mqtt/bridge/state', JSON.stringify({ state }), { retain: true });
  await client.publishAsync('zigbee2mqtt/bridge/devices', '[]', { retain: true });
  await client.endAsync();
}

describe('liveness and readiness', () => {
  it('/health answers 200 and /ready lists the store and each driver, with Zigbee off', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const health = await call(g.url, 'GET', '/health');
    assert.equal(health.status, 200);
    assert.deepEqual(health.json, { status: 'ok' });
    const ready = await call(g.url, 'GET', '/ready');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.json, {
      ready: true,
      checks: [
        { name: 'store', ok: true },
        { name: 'thirdparty', ok: true },
        { name: 'camera', ok: true },
      ],
    });
    // Ordinary HTTP, not the Open API's envelope, and no token needed.
    assert.match(ready.headers.get('content-type') ?? '', /^application\/json/);
  });

  it('turns false with the reason when the broker goes away or Zigbee2MQTT is offline, and true when they are back', async (t) => {
    let broker: Broker = await startBroker();
    const port = broker.port;
    t.after(() => broker.close());
    await zigbee2mqtt(broker.url, 'online');
    const g = await startGateway({
      overrides: { zigbee: { mode: 'z2m', mqtt_url: broker.url }, metrics: 'open' },
      gatewayOptions: { drivers: { zigbee: { driver: { reconnectMinMs: 20, reconnectMaxMs: 100 } } } },
    });
    t.after(() => g.stop());
    const ready = () => call(g.url, 'GET', '/ready');

    await waitForValue(async () => (await ready()).status === 200, 10_000, 'ready with the broker and Zigbee2MQTT up');
    const up = await ready();
    assert.deepEqual(
      up.json.checks.find((c: { name: string }) => c.name === 'zigbee2mqtt'),
      { name: 'zigbee2mqtt', ok: true },
    );
    assert.equal(metricValue(await scrape(g.url), 'opencube_driver_ready', { driver: 'zigbee2mqtt' }), 1);

    await broker.close();
    const down = await waitForValue(async () => {
      const r = await ready();
      return r.status === 503 && r;
    });
    assert.equal(down.json.ready, false);
    assert.deepEqual(down.json.reasons, [`zigbee2mqtt: the MQTT broker mqtt://127.0.0.1:${port} is not connected`]);
    assert.equal(metricValue(await scrape(g.url), 'opencube_driver_ready', { driver: 'zigbee2mqtt' }), 0);
    assert.equal((await call(g.url, 'GET', '/health')).status, 200, 'alive all the same');

    // The broker comes back (on the same port), empty: ready only once Zigbee2MQTT says online again.
    broker = await startBroker(port);
    await waitForValue(async () => {
      const r = await ready();
      return r.status === 503 && /no bridge\/state from Zigbee2MQTT zigbee2mqtt yet/.test(r.text) && r;
    });
    await zigbee2mqtt(broker.url, 'offline');
    const offline = await waitForValue(async () => {
      const r = await ready();
      return /is offline/.test(r.text) && r;
    });
    assert.equal(offline.status, 503);
    assert.deepEqual(offline.json.reasons, ['zigbee2mqtt: Zigbee2MQTT zigbee2mqtt is offline (bridge/state)']);
    await zigbee2mqtt(broker.url, 'online');
    await waitForValue(async () => (await ready()).status === 200, 10_000, 'ready again');
    assert.equal(metricValue(await scrape(g.url), 'opencube_mqtt_reconnects_total', { driver: 'zigbee2mqtt' }), 1);
  });
});
