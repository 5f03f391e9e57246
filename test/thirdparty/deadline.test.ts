import assert from 'node:assert/strict';
import { test } from 'node:test';
import { call, listDevices, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent, startService, successReply } from '../helpers/thirdparty.ts';

test('a D4 that configures and controls a slow third party still answers well inside the 5 s clients wait', async (t) => {
  const g = await startGateway();
  // The service takes 2.5 s to confirm the configuration (inside its 3 s) and never answers the control.
  const service = await startService((d, _req, res) => {
    if (d?.directive?.header?.name !== 'ConfigureDeviceCapabilities') return;
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(successReply(d)));
    }, 2500);
  });
  t.after(async () => {
    await g.stop();
    await service.close();
  });
  const token = await g.linkToken('slow-provider');
  const thermometer = endpoint('t-1', service.url, {
    display_category: 'temperatureSensor',
    capabilities: [
      { capability: 'power', permission: '1100' },
      {
        capability: 'temperature',
        permission: '0110',
        settings: {
          temperatureCalibration: { permission: '11', type: 'numeric', min: -5, max: 5, step: 0.5, value: 0 },
        },
      },
    ],
    state: { power: { powerState: 'off' } },
  });
  const sync = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [thermometer] });
  const serial = sync.json.payload.endpoints[0].serial_number as string;
  const capabilities = structuredClone(thermometer.capabilities) as any[];
  capabilities[1].settings.temperatureCalibration.value = 1.5;
  const started = Date.now();
  const r = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serial}`, {
    token,
    body: { capabilities, state: { power: { powerState: 'on' } } },
  });
  const took = Date.now() - started;
  assert.equal(r.status, 200);
  assert.equal(r.json.error, 110019, r.text);
  assert.ok(took < 4700, `answered after ${took} ms`);
  const device = (await listDevices(g.url, token)).find((d: any) => d.serial_number === serial);
  assert.equal(
    device.capabilities[1].settings.temperatureCalibration.value,
    1.5,
    'the confirmed configuration is kept',
  );
  assert.deepEqual(device.state.power, { powerState: 'off' }, 'the unconfirmed control changed nothing');
  assert.equal(device.online, true, 'a service cut short by the request deadline is not called offline');
});
