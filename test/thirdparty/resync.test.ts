import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listDevices, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

test('a re-sync that drops a capability or a channel drops its state too, also after a restart', async (t) => {
  let g = await startGateway();
  t.after(() => g.stop());
  const token = await g.linkToken('resync');
  const first = endpoint('r-1', 'http://127.0.0.1:9/', {
    state: {
      power: { powerState: 'on' },
      brightness: { brightness: 40 },
      toggle: { '1': { toggleState: 'on' }, '2': { toggleState: 'off' } },
    },
  });
  await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [first] });
  const before = (await listDevices(g.url, token)).find((d: any) => d.third_serial_number === 'r-1');
  assert.deepEqual(Object.keys(before.state).sort(), ['brightness', 'power', 'toggle']);

  // The provider's device lost its dimmer and its second channel.
  const second = {
    ...first,
    capabilities: [
      { capability: 'power', permission: '1100' },
      { capability: 'toggle', permission: '1100', name: '1' },
    ],
    state: {},
  };
  const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [second] });
  assert.equal(r.json.header.name, 'Response');
  const expected = { power: { powerState: 'on' }, toggle: { '1': { toggleState: 'on' } } };
  const after = (await listDevices(g.url, token)).find((d: any) => d.third_serial_number === 'r-1');
  assert.deepEqual(after.state, expected);
  g = await g.restart();
  const restarted = (await listDevices(g.url, token)).find((d: any) => d.third_serial_number === 'r-1');
  assert.deepEqual(restarted.state, expected);
});
