import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startGateway } from '../helpers/foundation.ts';
import { openEvents } from '../helpers/sse.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

test('each press of a button reaches the stream, also the same press twice, while repeated states and re-syncs do not', async (t) => {
  const g = await startGateway();
  const token = await g.linkToken('buttons');
  const stream = await openEvents(g.url, token);
  t.after(async () => {
    stream.close();
    await g.stop();
  });
  const button = endpoint('btn-1', 'http://127.0.0.1:9/', {
    display_category: 'button',
    capabilities: [
      { capability: 'press', permission: '0100' },
      { capability: 'multi-press', permission: '0100', name: '1' },
      { capability: 'battery', permission: '0100' },
    ],
    state: { battery: { battery: 90 } },
  });
  const sync = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [button] });
  const serial = sync.json.payload.endpoints[0].serial_number as string;
  const report = (state: Record<string, unknown>) =>
    sendEvent(g, token, 'DeviceStatesChangeReport', { state }, { endpoint: { serial_number: serial } });
  await report({ press: { press: 'singlePress' } });
  await report({ press: { press: 'singlePress' } });
  await report({ 'multi-press': { '1': { press: 'doublePress' } } });
  await report({ 'multi-press': { '1': { press: 'doublePress' } } });
  await report({ battery: { battery: 90 } });
  await report({ battery: { battery: 89 } });
  // A re-sync that carries the last press in its state is not a press.
  await sendEvent(g, token, 'DiscoveryRequest', {
    endpoints: [{ ...button, state: { press: { press: 'singlePress' }, battery: { battery: 89 } } }],
  });
  await report({ battery: { battery: 88 } });
  await stream.waitFor((e) => e.type === 'updateDeviceState' && e.data.payload.battery?.battery === 88);
  const payloads = stream
    .of('updateDeviceState')
    .filter((e) => e.data.endpoint.serial_number === serial)
    .map((e) => e.data.payload);
  assert.deepEqual(payloads, [
    { press: { press: 'singlePress' } },
    { press: { press: 'singlePress' } },
    { 'multi-press': { '1': { press: 'doublePress' } } },
    { 'multi-press': { '1': { press: 'doublePress' } } },
    { battery: { battery: 89 } },
    { battery: { battery: 88 } },
  ]);
});
