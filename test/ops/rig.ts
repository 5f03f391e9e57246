/**
 * A gateway with something of everything the store keeps, for the backup, metrics and log tests:
 * third-party devices (renamed, tagged), a camera with an account, a token got through the link
 * button, an armed mode with alarm settings, a TTS engine, a dashboard card, a volume.
 */
import assert from 'node:assert/strict';
import { cameraBody } from '../camera/bodies.ts';
import { makeJpegs, startEsp32 } from '../camera/servers.ts';
import { call, rest, type TestGateway } from '../helpers/foundation.ts';
import { endpoint, type Service, sendEvent, startService } from '../helpers/thirdparty.ts';

/** The card a public add-on registers (sizes written with U+00D7). */
export function weatherCard(src: string) {
  return {
    label: 'Weather Card',
    web_settings: {
      default: '2×1',
      dimensions: [{ size: '2×1', src }],
      drawer_component: { src },
    },
    cast_settings: { default: '1×1', dimensions: [{ size: '1×1', src }] },
  };
}

export interface Populated {
  token: string;
  service: Service;
  /** Serial numbers of the third-party devices, in the order synced. */
  serials: string[];
  camera: string;
  close(): Promise<void>;
}

/** Fills a running gateway through its API, as clients would. */
export async function populate(
  g: TestGateway,
  opts: { serviceAddress?: (url: string) => string } = {},
): Promise<Populated> {
  const token = await g.linkToken('sync-addon');
  const service = await startService();
  const address = opts.serviceAddress ? opts.serviceAddress(service.url) : service.url;
  const synced = await sendEvent(g, token, 'DiscoveryRequest', {
    endpoints: [
      endpoint('lamp-1', address, { tags: { room: 'hall', routing: { via: 'addon', id: 7 } } }),
      endpoint('lamp-2', address),
      endpoint('lamp-3', address),
    ],
  });
  assert.equal(synced.json?.header?.name, 'Response', synced.text);
  const serials = (synced.json.payload.endpoints as { serial_number: string }[]).map((e) => e.serial_number);
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await call(g.url, method, rest('v2', path), { token, body });
    assert.equal(r.json?.error, 0, `${method} ${path}: ${r.text}`);
    return r.json.data;
  };
  await ok('PUT', `devices/${serials[0]}`, { name: 'Hall lamp', tags: { room: 'hall', floor: 0, blob: 'aGVsbG8=' } });
  await ok('PUT', 'security/1/enable');
  await ok('PUT', 'security/2/config', { exit_delay: 30, entry_delay: 15 });
  await ok('PUT', 'bridge/config', { volume: 35 });
  const engine = await sendEvent(g, token, 'RegisterTTSEngine', { service_address: address, name: 'Add-on TTS' });
  assert.equal(engine.json?.header?.name, 'Response', engine.text);
  await ok('POST', 'ui/cards', weatherCard('http://127.0.0.1:8321/#/card'));
  const esp = await startEsp32(makeJpegs(160, 120, 2));
  esp.account = { username: 'admin', password: 'cam-secret-9' };
  const cam = await call(g.url, 'POST', rest('v2', 'devices'), {
    token,
    body: cameraBody(`http://admin:cam-secret-9@127.0.0.1:${esp.port}/capture`),
  });
  assert.equal(cam.json?.error, 0, cam.text);
  return {
    token,
    service,
    serials,
    camera: cam.json.data.serial_number,
    async close() {
      await service.close();
      await esp.close();
    },
  };
}

/** What a client reads of a gateway: devices, modes and their alarm settings, engines, cards. */
export async function snapshot(url: string, token: string) {
  const get = async (path: string) => {
    const r = await call(url, 'GET', rest('v2', path), { token });
    assert.equal(r.json?.error, 0, `GET ${path}: ${r.text}`);
    return r.json.data;
  };
  const devices = ((await get('devices')).device_list as { serial_number: string }[]).sort((a, b) =>
    a.serial_number.localeCompare(b.serial_number),
  );
  return {
    devices,
    security: await get('security'),
    alarm: await get('security/2/config'),
    engines: await get('tts/engines'),
    cards: await get('ui/cards'),
  };
}
