/**
 * The simulator's MQTT broker takes only the credentials generated at its start (issue 16,
 * point 8): another local process can neither read the devices nor inject states that the
 * gateway would report as real; the credentials never reach the log. It publishes a client's last
 * will only when that client is gone (issue 23: aedes' sweep published it at 240 s), and delivers
 * a retained message that a plain one overtook inside aedes (its cluster duplicate filter is off).
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import mqtt from 'mqtt';
import pino from 'pino';
import { startBroker, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
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

/** An MQTT 3.1.1 packet with a short body (under 128 bytes, one byte of remaining length). */
function packet(first: number, body: Buffer): Buffer {
  assert.ok(body.length < 128);
  return Buffer.concat([Buffer.from([first, body.length]), body]);
}

function utf8(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
}

/** A CONNECT with a clean session and no keep-alive, and QoS 0 PUBLISHes, written by hand. */
const CONNECT = (clientId: string) =>
  packet(0x10, Buffer.concat([utf8('MQTT'), Buffer.from([4, 0x02, 0, 0]), utf8(clientId)]));
const PUBLISH = (topic: string, payload: string, retain: boolean) =>
  packet(retain ? 0x31 : 0x30, Buffer.concat([utf8(topic), Buffer.from(payload)]));

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the simulated network broker', () => {
  it("publishes a client's last will only once the client is gone, however many of its sweeps run meanwhile", async (t) => {
    // A heartbeat of 50 ms: aedes looks for the wills of dead brokers every 200 ms; 3 s is 15
    // sweeps (with the default heartbeat, 60 minutes).
    const broker = await startBroker(0, '127.0.0.1', undefined, { heartbeatMs: 50 });
    t.after(() => broker.close());
    const z2m = await mqtt.connectAsync(broker.url, {
      reconnectPeriod: 0,
      will: { topic: 'z2m/bridge/state', payload: Buffer.from('{"state":"offline"}'), retain: true, qos: 0 },
    });
    await z2m.publishAsync('z2m/bridge/state', '{"state":"online"}', { retain: true });
    const gateway = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    t.after(() => gateway.endAsync(true));
    const seen: string[] = [];
    gateway.on('message', (_topic, payload) => seen.push(payload.toString()));
    await gateway.subscribeAsync('z2m/bridge/state');
    await pause(3000);
    assert.deepEqual(seen, ['{"state":"online"}'], 'online all along while it is connected');

    z2m.stream.destroy(); // gone without a DISCONNECT, as a crashed Zigbee2MQTT
    const until = Date.now() + 10_000;
    while (seen.length < 2 && Date.now() < until) await pause(20);
    assert.deepEqual(seen, ['{"state":"online"}', '{"state":"offline"}'], 'its will, once');
  });

  it('delivers a retained message that a plain one sent right after it overtook in the broker', async (t) => {
    const broker = await startBroker();
    t.after(() => broker.close());
    const reader = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    t.after(() => reader.endAsync(true));
    const got: string[] = [];
    reader.on('message', (topic) => got.push(topic));
    await reader.subscribeAsync('sim/#');
    // One socket write, as a reconnecting Zigbee2MQTT sends its retained state and its devices:
    // aedes stores each retained message before delivering it, and the plain one behind it goes
    // first; a duplicate filter would then drop the retained one as older.
    const raw = connect(broker.port, '127.0.0.1');
    t.after(() => raw.destroy());
    await new Promise((r) => raw.once('connect', r));
    raw.write(CONNECT('raw-publisher'));
    await pause(100);
    const burst: Buffer[] = [];
    for (let i = 0; i < 20; i++)
      burst.push(PUBLISH(`sim/retained${i}`, 'r', true), PUBLISH(`sim/plain${i}`, 'p', false));
    raw.write(Buffer.concat(burst));
    const until = Date.now() + 10_000;
    while (got.length < 40 && Date.now() < until) await pause(20);
    assert.equal(got.filter((x) => x.startsWith('sim/retained')).length, 20, 'every retained message');
    assert.equal(got.filter((x) => x.startsWith('sim/plain')).length, 20, 'every plain one');
  });

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
