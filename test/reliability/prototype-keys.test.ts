/**
 * Keys that name properties of every JavaScript object (`constructor`, `toString`, `__proto__`,
 * ...) sent where the gateway looks input keys up (setting names, capability names, channel
 * names, sound names, ids) get the same clear message as any other unknown key, and change
 * nothing (issue 16, point 9).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

const KEYS = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'];

const CAPABILITIES = [
  { capability: 'power', permission: '1100' },
  {
    capability: 'temperature',
    permission: '0110',
    settings: { temperatureUnit: { permission: '11', type: 'enum', value: 'c', values: ['c', 'f'] } },
  },
  { capability: 'thermostat', permission: '1100', name: 'thermostat-mode' },
];

describe('input keys named like properties of every object', () => {
  let gw: TestGateway;
  let token: string;
  let serial: string;
  before(async () => {
    gw = await startGateway();
    token = gw.token('keys');
    const r = await sendEvent(gw, token, 'DiscoveryRequest', {
      endpoints: [endpoint('t1', 'http://127.0.0.1:9/x', { capabilities: CAPABILITIES, state: {} })],
    });
    serial = r.json.payload.endpoints[0].serial_number;
  });
  after(() => gw.stop());

  for (const key of KEYS) {
    // Raw JSON text: `__proto__` in JSON is an own key, as a client sends it.
    const cases: [string, string, string, string][] = [
      [
        'a D4 setting',
        `devices/{serial}`,
        `{"capabilities":[{"capability":"temperature","permission":"0110","settings":{"${key}":{"value":1}}}]}`,
        `capabilities.0.settings.${key}: the device has no setting ${key}`,
      ],
      [
        'a D4 capability',
        `devices/{serial}`,
        `{"capabilities":[{"capability":"${key}"}]}`,
        `capabilities.0: the device has no capability ${key}`,
      ],
      [
        'a D4 channel name',
        `devices/{serial}`,
        `{"state":{"thermostat":{"${key}":{"thermostatMode":"AUTO"}}}}`,
        `state.thermostat.${key}: the device has no name ${key} of thermostat`,
      ],
      [
        'a D4 command',
        `devices/{serial}`,
        `{"state":{"${key}":{"powerState":"on"}}}`,
        `state.${key}: the device has no capability ${key}`,
      ],
      [
        'a D6 capability',
        `devices/{serial}/query-state/${key}`,
        '{"query_state":{}}',
        `query_state: the device has no capability ${key}`,
      ],
      [
        'a sound name',
        'hardware/speaker',
        `{"type":"play_sound","sound":{"name":"${key}","volume":1,"countdown":1}}`,
        `sound.name: "${key}" is not one of`,
      ],
      ['a security mode id', `security/${key}/enable`, '{}', `security_id: "${key}" is not a security mode id`],
    ];
    for (const [where, path, body, message] of cases) {
      it(`\`${key}\` as ${where} is refused with a message naming it`, async () => {
        const method = path.includes('query-state') || path === 'hardware/speaker' ? 'POST' : 'PUT';
        const r = await call(gw.url, method, rest('v2', path.replace('{serial}', serial)), { token, body });
        assert.equal(r.json?.error, 400, r.text);
        assert.ok((r.json.message as string).startsWith(message), r.json.message);
      });
    }

    it(`\`${key}\` as a reported setting is ignored: the device keeps its settings`, async () => {
      const settings = JSON.parse(`{"${key}":{"permission":"11","type":"numeric","value":1}}`);
      const r = await sendEvent(
        gw,
        token,
        'DeviceInformationUpdatedReport',
        { capabilities: [{ capability: 'temperature', permission: '0110', settings }] },
        { endpoint: { serial_number: serial } },
      );
      assert.equal(r.json.header.name, 'Response', r.text);
      const device = gw.gateway.devices.registry.get(serial);
      assert.deepEqual(device?.capabilities, CAPABILITIES);
    });
  }

  it('leaves the prototype of every object untouched', () => {
    assert.deepEqual(Object.keys(Object.prototype), []);
    assert.equal(({} as Record<string, unknown>).value, undefined);
    assert.equal(({} as Record<string, unknown>).permission, undefined);
  });
});
