/**
 * The simulator's MQTT broker takes only the credentials generated at its start (issue 16,
 * point 8): another local process can neither read the devices nor inject states that the
 * gateway would report as real; the credentials never reach the log.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import mqtt from 'mqtt';
import pino from 'pino';
import { startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { eventually, listDevices, startGateway } from '../helpers/foundation.ts';

/** Tries to connect once; the CONNACK refusal code, or 0 when connected (the client is closed). */
async function connackCode(url: string, opts: mqtt.IClientOptions = {}): Promise<number> {
  try {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...opts });
    await client.endAsync(true);
    return 0;
  } catch (err) {
    return Number((err as { code?: number }).code);
  }
}

describe('the simulated network broker', () => {
  it('refuses a client without the credentials or with wrong ones, and serves one with them', async (t) => {
    const net = await startSimNetwork({ baseTopics: ['zigbee2mqtt'], devices: 2 });
    t.after(() => net.stop());
    const url = new URL(net.url);
    assert.ok(url.password.length >= 32, 'a generated password');
    const bare = `mqtt://127.0.0.1:${url.port}`;
    assert.equal(await connackCode(bare), 4, 'no credentials: bad user name or password');
    assert.equal(await connackCode(bare, { username: url.username, password: 'guess' }), 4);
    assert.equal(await connackCode(bare, { username: 'admin', password: decodeURIComponent(url.password) }), 4);
    assert.equal(await connackCode(net.url), 0, 'the URL of the network carries them');

    const other = await startSimNetwork({ baseTopics: ['zigbee2mqtt'], devices: 0 });
    t.after(() => other.stop());
    assert.notEqual(new URL(other.url).password, url.password, 'new credentials at every start');
  });

  it('in sim mode, another local process cannot connect to inject states; the log never shows the password', async (t) => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const gw = await startGateway({
      overrides: { zigbee: { mode: 'sim', sim_devices: 2 } },
      gatewayOptions: { log },
    });
    t.after(() => gw.stop());
    const token = gw.token('sim');
    await eventually(() => gw.gateway.devices.registry.size === 2, 20_000, 'the simulated devices');
    const started = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'zigbee: simulated network started');
    assert.match(started?.url, /^mqtt:\/\/opencube:\[redacted\]@127\.0\.0\.1:\d+$/);
    const port = new URL(started.url.replace('***', 'x')).port;
    for (const line of lines) assert.doesNotMatch(line, /opencube:[\w-]{32}@/, 'no password in the log');

    // An intruder would publish a door opening as Zigbee2MQTT reports it: it cannot even connect.
    assert.equal(await connackCode(`mqtt://127.0.0.1:${port}`), 4, 'the intruder is refused');
    assert.equal((await listDevices(gw.url, token)).length, 2, 'the gateway itself is connected');
  });
});
