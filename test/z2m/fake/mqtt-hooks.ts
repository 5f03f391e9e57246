/**
 * Test hooks of the fake Zigbee network over MQTT, on the broker Zigbee2MQTT uses, so a test can
 * drive devices inside the Zigbee2MQTT process. Topics (prefix `fake-zigbee` by default):
 *
 *   in   <prefix>/join                 {"ieee"?}  a joinable device joins (only while joining is open)
 *   in   <prefix>/<ieee>/report        {"endpoint"?, "cluster", "attributes": {name: value}}
 *   in   <prefix>/<ieee>/command       {"endpoint"?, "cluster", "command", "payload"?}  device -> coordinator
 *   in   <prefix>/<ieee>/offline       the device stops answering and reporting
 *   in   <prefix>/<ieee>/online        it answers again (and announces itself)
 *   in   <prefix>/<ieee>/leave         it leaves the network by itself
 *   in   <prefix>/<ieee>/fail-next     {"count"?, "cluster"?}  its next request(s) (on that cluster) get no answer
 *   in   <prefix>/<ieee>/ota-fail      {"how"?: "invalid-image" | "silent"}  its next firmware update fails
 *   in   <prefix>/<ieee>/ota-hold      its next firmware download waits after the first block (event ota_held)
 *   in   <prefix>/<ieee>/ota-release   a held download goes on
 *   out  <prefix>/status               retained "online"; "offline" when the process is gone (will)
 *   out  <prefix>/<ieee>/received      {"kind", "endpoint", "cluster", "command", "payload", "answered"}
 *   out  <prefix>/group/<n>/received   {"kind": "group", "cluster", "command", "payload"}  a frame sent to a group
 *   out  <prefix>/events               {"type": "permit_join" | "joined" | "left" | "refused" | "ota_held" | "hook_error", ...}
 */
import mqtt, { type MqttClient } from 'mqtt';
import type { FakeZigbeeNetwork } from './network.ts';
import type { AttributeValues } from './spec.ts';

export const DEFAULT_HOOK_PREFIX = 'fake-zigbee';
const HOOKS = ['report', 'command', 'offline', 'online', 'leave', 'fail-next', 'ota-fail', 'ota-hold', 'ota-release'];

/** JSON for MQTT: bigints as numbers (or strings when too large), buffers as hex. */
export function hookJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => {
    if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
    if (v && typeof v === 'object' && v.type === 'Buffer' && Array.isArray(v.data))
      return Buffer.from(v.data).toString('hex');
    return v;
  });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function parse(text: string): unknown {
  if (text.trim() === '') return {};
  return JSON.parse(text);
}

/** Connects the hooks of `net` to the broker at `url`; resolves once subscribed and `status` is online. */
export async function connectHooks(
  net: FakeZigbeeNetwork,
  url: string,
  prefix = DEFAULT_HOOK_PREFIX,
): Promise<{ close(): Promise<void> }> {
  const client: MqttClient = mqtt.connect(url, {
    clientId: `fake-zigbee-${process.pid}-${Math.random().toString(16).slice(2, 8)}`,
    reconnectPeriod: 500,
    will: { topic: `${prefix}/status`, payload: Buffer.from('offline'), retain: true, qos: 1 },
  });
  const publish = (topic: string, body: unknown, retain = false) =>
    client.publish(topic, typeof body === 'string' ? body : hookJson(body), { qos: 1, retain });
  const event = (body: Record<string, unknown>) => publish(`${prefix}/events`, body);

  net.events.on('received', (r) =>
    publish(r.kind === 'group' ? `${prefix}/${r.ieee.replace(' ', '/')}/received` : `${prefix}/${r.ieee}/received`, r),
  );
  net.events.on('permitJoin', (p) => event({ type: 'permit_join', ...p }));
  net.events.on('joined', (p) => event({ type: 'joined', ...p }));
  net.events.on('left', (p) => event({ type: 'left', ...p }));
  net.events.on('refused', (p) => event({ type: 'refused', ...p }));
  net.events.on('otaHeld', (p) => event({ type: 'ota_held', ...p }));

  client.on('message', (topic, buf) => {
    try {
      handle(net, topic.slice(prefix.length + 1), parse(buf.toString()));
    } catch (err) {
      // A malformed hook is a test's mistake: say so on the events topic, never crash Zigbee2MQTT.
      event({ type: 'hook_error', topic, error: (err as Error).message });
    }
  });
  client.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  await client.subscribeAsync([`${prefix}/join`, ...HOOKS.map((verb) => `${prefix}/+/${verb}`)], { qos: 1 });
  await client.publishAsync(`${prefix}/status`, 'online', { qos: 1, retain: true });
  return {
    async close() {
      await client.publishAsync(`${prefix}/status`, 'offline', { qos: 1, retain: true }).catch(() => {});
      await client.endAsync();
    },
  };
}

function handle(net: FakeZigbeeNetwork, rest: string, msg: unknown): void {
  if (rest === 'join') {
    const ieee = isObj(msg) && typeof msg.ieee === 'string' ? msg.ieee : undefined;
    net.join(ieee);
    return;
  }
  const [ieee, verb] = rest.split('/') as [string, string];
  const body = isObj(msg) ? msg : {};
  const endpoint = typeof body.endpoint === 'number' ? body.endpoint : undefined;
  switch (verb) {
    case 'report':
      if (typeof body.cluster !== 'string' || !isObj(body.attributes))
        throw new Error('report needs {"cluster": string, "attributes": object}');
      net.report(ieee, endpoint, body.cluster, body.attributes as AttributeValues);
      return;
    case 'command':
      if (typeof body.cluster !== 'string' || typeof body.command !== 'string')
        throw new Error('command needs {"cluster": string, "command": string}');
      net.command(ieee, endpoint, body.cluster, body.command, isObj(body.payload) ? body.payload : {});
      return;
    case 'offline':
      net.setOnline(ieee, false);
      return;
    case 'online':
      net.setOnline(ieee, true);
      return;
    case 'leave':
      net.leave(ieee);
      return;
    case 'fail-next':
      net.failNext(
        ieee,
        typeof body.count === 'number' && body.count > 0 ? Math.floor(body.count) : 1,
        typeof body.cluster === 'string' ? body.cluster : undefined,
      );
      return;
    case 'ota-fail':
      net.failOta(ieee, body.how === 'silent' ? 'silent' : 'invalid-image');
      return;
    case 'ota-hold':
      net.holdOta(ieee);
      return;
    case 'ota-release':
      net.releaseOta(ieee);
      return;
    default:
      throw new Error(`unknown hook '${verb}'`);
  }
}
