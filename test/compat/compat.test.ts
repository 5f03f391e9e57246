/**
 * The conformance checklist of COMPAT.md: what the public clients of this API (Node-RED, Python,
 * .NET, dashboard, MCP server, Homebridge, sync and TTS add-ons) send and expect on the wire. Every
 * point of COMPAT.md has at least one test named after it (the quoted gist), grouped by its
 * sections, run against a real gateway on 127.0.0.1 over real HTTP, with small third-party
 * services on 127.0.0.1:0. Points already covered in depth elsewhere in test/ are checked compactly.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, request, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { EventSource } from 'eventsource';
import { Agent, fetch as undiciFetch } from 'undici';
import { loadSettings } from '../../src/settings/index.ts';
import { settingDefs } from '../../src/settings/schema.ts';
import { advanceUntil, ManualClock } from '../helpers/clock.ts';
import {
  call,
  eventually,
  type Frame,
  listDevices,
  openStream,
  type RawStream,
  rest,
  startGateway,
  type TestGateway,
  waitForValue,
} from '../helpers/foundation.ts';
import { canUnshare, runInLoopback } from '../helpers/netns.ts';
import {
  endpoint,
  type Received,
  type SendEventOptions,
  type Service,
  type ServiceHandler,
  sendEvent,
  sendJson,
  startService,
  successReply,
} from '../helpers/thirdparty.ts';

// ---------------------------------------------------------------------------------------------
// Local helpers

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The event-stream path as clients open it: the token only in the query string. */
const ssePath = (version: string, token: string, extra = '') =>
  `/open-api/${version}/sse/bridge?access_token=${encodeURIComponent(token)}${extra}`;

/** One request over node:http, so headers go out exactly as given (an empty Authorization included). */
function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Syncs devices by DiscoveryRequest; returns their serial numbers in order. */
async function discover(
  base: string,
  token: string,
  endpoints: unknown[],
  opts: SendEventOptions = {},
): Promise<string[]> {
  const r = await sendEvent({ url: base }, token, 'DiscoveryRequest', { endpoints }, opts);
  assert.equal(r.json?.header?.name, 'Response', r.text);
  return r.json.payload.endpoints.map((e: { serial_number: string }) => e.serial_number);
}

/**
 * A third-party smoke detector sets the alarm off (smoke rings in every mode), cancel_alarm ends
 * it, and the detector is removed: `alarming` then `normal` on the stream.
 */
async function alarmThenCancel(base: string, token: string, third: string): Promise<void> {
  const [serial] = await discover(base, token, [
    endpoint(third, 'http://127.0.0.1:9/', {
      display_category: 'smokeDetector',
      capabilities: [{ capability: 'smoke', permission: '0100' }],
      state: { smoke: { smoke: false } },
    }),
  ]);
  const ep = { serial_number: serial, third_serial_number: third };
  const r = await sendEvent(
    { url: base },
    token,
    'DeviceStatesChangeReport',
    { state: { smoke: { smoke: true } } },
    { endpoint: ep },
  );
  assert.equal(r.json?.header?.name, 'Response', r.text);
  assert.deepEqual((await call(base, 'PUT', rest('v2', 'bridge/cancel_alarm'), { token })).json, SUCCESS);
  assert.equal((await call(base, 'DELETE', rest('v2', `devices/${serial}`), { token })).json.error, 0);
}

async function device(base: string, token: string, serial: string): Promise<any> {
  return (await listDevices(base, token)).find((d) => d.serial_number === serial);
}

/** The first event frame named `name` whose data satisfies `pred`; its data parsed. */
async function nextEvent(
  s: RawStream,
  name: string,
  pred: (data: any) => boolean = () => true,
): Promise<{ frame: Frame; data: any }> {
  const match = (f: Frame) => f.event === name && pred(JSON.parse(f.data[0] ?? 'null'));
  const frames = await s.waitFor((fs) => fs.some(match));
  const frame = frames.find(match) as Frame;
  return { frame, data: JSON.parse(frame.data[0] as string) };
}

/** Every character Python's str.splitlines breaks a line on (a superset of the SSE spec's CR and LF). */
const LINE_BREAKS = new Set(
  [0x0a, 0x0d, 0x0b, 0x0c, 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029].map((c) => String.fromCharCode(c)),
);
const hasLineBreak = (text: string) => [...text].some((c) => LINE_BREAKS.has(c));

const SUCCESS = { error: 0, data: {}, message: 'success' };
const AUTH_INVALID = '{"error":401,"data":{},"message":"headers.Authorization is invalid"}';
const LINK_NOT_PRESSED = '{"error":401,"data":{},"message":"link button not pressed"}';
const SSE_INVALID = { error: 401, data: {}, message: 'invalid access_token' };

// ---------------------------------------------------------------------------------------------
// One gateway for the checklist (Zigbee off, as the test settings have it). The heartbeat is at
// its minimum (1 s) so the heartbeat point is quick; the directive timeout stays the spec's 3 s.

let gw: TestGateway;
let token: string;
let restarts = 0;
const services: Service[] = [];

async function service(handler?: ServiceHandler): Promise<Service> {
  const s = await startService(handler);
  services.push(s);
  return s;
}

before(async () => {
  gw = await startGateway({
    overrides: { sse: { heartbeat_seconds: 1 } },
    gatewayOptions: { onRestart: () => restarts++ },
  });
  assert.equal(gw.gateway.settings.zigbee.mode, 'off');
  assert.equal(gw.gateway.settings.thirdparty.timeout_ms, 3000);
  token = gw.token('compat');
});

/**
 * A second gateway in the default mode (the simulated Zigbee network, four devices: a plug, a
 * two-channel wall switch, lights), started on first use, for the points about Zigbee devices.
 */
let sim: Promise<{ g: TestGateway; token: string }> | undefined;
function simGateway(): Promise<{ g: TestGateway; token: string }> {
  sim ??= (async () => {
    const g = await startGateway({ overrides: { zigbee: { mode: 'sim', sim_devices: 4 } } });
    const simToken = g.token('compat-sim');
    await eventually(() => g.gateway.devices.registry.size === 4, 20_000, 'the simulated devices');
    return { g, token: simToken };
  })();
  return sim;
}

after(async () => {
  await gw?.stop();
  if (sim) await (await sim).g.stop();
  await Promise.all(services.map((s) => s.close()));
});

// ---------------------------------------------------------------------------------------------

describe('Paths and versions', () => {
  test('"clients send the version segment in lower case (/open-api/v2/...); the spec writes V2": matched case-insensitively', async () => {
    const bodies = new Map<string, string>();
    for (const v of ['v2', 'V2', 'v1', 'V1']) {
      const bridge = await call(gw.url, 'GET', rest(v, 'bridge'));
      assert.equal(bridge.json.error, 0, `${v}: ${bridge.text}`);
      const devices = await call(gw.url, 'GET', rest(v, 'devices'), { token });
      assert.equal(devices.json.error, 0, `${v}: ${devices.text}`);
      bodies.set(v, devices.text);
      const s = await openStream(gw.url, ssePath(v, token));
      s.close();
      assert.equal(s.status, 200, `stream on ${v}`);
    }
    assert.equal(bodies.get('v2'), bodies.get('V2'));
    assert.equal(bodies.get('v1'), bodies.get('V1'));
  });

  test('"serve the whole tree under v1 as well as v2 (REST and SSE), same bodies"; "most add-ons speak only v1"', async () => {
    const svc = await service();
    // An add-on that speaks only v1 syncs, reports and is controlled through the v1 tree.
    const [serial] = await discover(gw.url, token, [endpoint('v1-only', svc.url)], { apiVersion: 'v1' });
    const report = await sendEvent(
      gw,
      token,
      'DeviceStatesChangeReport',
      { state: { brightness: { brightness: 42 } } },
      { apiVersion: 'v1', endpoint: { serial_number: serial, third_serial_number: 'v1-only' } },
    );
    assert.equal(report.json.header.name, 'Response', report.text);
    const control = await call(gw.url, 'PUT', rest('v1', `devices/${serial}`), {
      token,
      body: { state: { power: { powerState: 'on' } } },
    });
    assert.deepEqual(control.json, SUCCESS);
    for (const path of ['bridge', 'devices', 'security', 'tts/engines']) {
      const [v1, v2] = await Promise.all(['v1', 'v2'].map((v) => call(gw.url, 'GET', rest(v, path), { token })));
      assert.equal(v1?.json.error, 0, `${path}: ${v1?.text}`);
      assert.deepEqual(v1?.json, v2?.json, `GET ${path}: same body under v1 and v2`);
    }
    const [r1, r2] = await Promise.all(
      ['v1', 'v2'].map((v) => call(gw.url, 'GET', rest(v, 'bridge/runtime'), { token })),
    );
    assert.deepEqual(Object.keys(r1?.json.data).sort(), Object.keys(r2?.json.data).sort());
    for (const path of ['bridge/mute', 'bridge/unmute', 'security/disable']) {
      assert.deepEqual((await call(gw.url, 'PUT', rest('v1', path), { token })).json, SUCCESS, `PUT v1 ${path}`);
    }
    const d = await device(gw.url, token, serial);
    assert.deepEqual(d.state.power, { powerState: 'on' });
    assert.equal(d.state.brightness.brightness, 42);
    const stream = await openStream(gw.url, ssePath('v1', token));
    stream.close();
    assert.equal(stream.status, 200);
  });

  test('"several v2 clients first probe GET /open-api/v1/rest/bridge"', async () => {
    const r = await call(gw.url, 'GET', '/open-api/v1/rest/bridge');
    assert.equal(r.status, 200);
    assert.equal(r.json.error, 0);
    for (const k of ['ip', 'mac', 'name', 'domain', 'fw_version']) assert.equal(typeof r.json.data[k], 'string', k);
  });

  test('"one .NET client always opens the event stream on /open-api/v1/sse/bridge"', async (t) => {
    const es = new EventSource(`${gw.url}/open-api/v1/sse/bridge?access_token=${encodeURIComponent(token)}`);
    t.after(() => es.close());
    const arming: any[] = [];
    es.addEventListener('security#v1#updateArmState', (e) => {
      const data = JSON.parse(e.data);
      if (data.payload.arm_state === 'arming') arming.push(data);
    });
    await eventually(() => es.readyState === EventSource.OPEN, 5000, 'v1 stream open');
    await call(gw.url, 'PUT', rest('v1', 'security/disable'), { token });
    await call(gw.url, 'PUT', rest('v1', 'security/3/enable'), { token });
    await eventually(() => arming.length > 0, 5000, 'an event on the v1 stream');
    assert.deepEqual(arming[0].payload, { arm_state: 'arming', detail: { sid: 3, name: 'sleep_mode' } });
    await call(gw.url, 'PUT', rest('v1', 'security/disable'), { token });
  });

  test('"event names carry the version of the URL the stream was opened on (device#v1#addDevice on v1)"', async (t) => {
    const svc = await service();
    const [s1, s2] = await Promise.all([
      openStream(gw.url, ssePath('v1', token)),
      openStream(gw.url, ssePath('v2', token)),
    ]);
    t.after(() => {
      s1.close();
      s2.close();
    });
    const [serial] = await discover(gw.url, token, [endpoint('named-by-version', svc.url)]);
    const isIt = (d: any) => d.payload.serial_number === serial;
    const [e1, e2] = await Promise.all([
      nextEvent(s1, 'device#v1#addDevice', isIt),
      nextEvent(s2, 'device#v2#addDevice', isIt),
    ]);
    assert.deepEqual(e1.data, e2.data);
    assert.ok(!s1.events().some((f) => f.event?.includes('#v2#')), 'no v2 names on the v1 stream');
    assert.ok(!s2.events().some((f) => f.event?.includes('#v1#')), 'no v1 names on the v2 stream');
  });

  test('"third-party event headers carry version 1 or 2; accept both, echo what was sent"', async () => {
    const svc = await service();
    const serials: Record<string, string> = {};
    for (const version of ['1', '2']) {
      const messageId = randomUUID();
      const r = await sendEvent(
        gw,
        token,
        'DiscoveryRequest',
        { endpoints: [endpoint(`version-${version}`, svc.url)] },
        {
          version,
          messageId,
        },
      );
      assert.deepEqual(r.json.header, { name: 'Response', message_id: messageId, version }, r.text);
      serials[version] = r.json.payload.endpoints[0].serial_number;
      const report = await sendEvent(
        gw,
        token,
        'DeviceOnlineChangeReport',
        { online: true },
        { version, endpoint: { serial_number: serials[version], third_serial_number: `version-${version}` } },
      );
      assert.equal(report.json.header.version, version);
    }
    // The gateway's directives to a service carry the version it synced with.
    for (const version of ['1', '2']) {
      svc.received.length = 0;
      const r = await call(gw.url, 'PUT', rest('v2', `devices/${serials[version]}`), {
        token,
        body: { state: { power: { powerState: 'on' } } },
      });
      assert.deepEqual(r.json, SUCCESS);
      assert.equal(svc.received[0]?.body.directive.header.version, version);
    }
  });

  test('"default port: the hardware listens on 80 (one model on 8081); any port works when the user gives ip:port"', async () => {
    assert.equal(loadSettings().port, 8081, 'the default is the port of the 8081 model');
    // The test gateway listens on whatever free port it got: clients build http://<ip:port>/open-api/...
    const port = new URL(gw.url).port;
    assert.notEqual(port, '');
    const r = await call(`http://127.0.0.1:${port}`, 'GET', '/open-api/v1/rest/bridge');
    assert.equal(r.json.error, 0);
  });
});

// ---------------------------------------------------------------------------------------------

describe('Requests', () => {
  test('"every client sends Content-Type: application/json on every request, also on GET"', async () => {
    for (const path of ['bridge', 'bridge/runtime', 'devices', 'security', 'tts/engines']) {
      const r = await rawRequest(gw.url, 'GET', rest('v2', path), {
        'content-type': 'application/json',
        authorization: `Bearer ${token}`,
      });
      assert.equal(r.status, 200, path);
      assert.equal(JSON.parse(r.text).error, 0, `${path}: ${r.text}`);
    }
    const poll = await rawRequest(gw.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=ct`, {
      'content-type': 'application/json',
    });
    assert.equal(poll.text, LINK_NOT_PRESSED);
    const s = await openStream(gw.url, ssePath('v2', token), { 'content-type': 'application/json' });
    s.close();
    assert.equal(s.status, 200);
  });

  test('"also on PUT/POST with an EMPTY body (mute, unmute, cancel_alarm, reboot, security enable/disable): an empty body is {}, never a parse error"', async () => {
    const calls: [string, string][] = [
      ['PUT', 'bridge/mute'],
      ['PUT', 'bridge/unmute'],
      ['PUT', 'bridge/cancel_alarm'],
      ['POST', 'hardware/reboot'],
      ['PUT', 'security/enable'],
      ['PUT', 'security/disable'],
      ['PUT', 'security/1/enable'],
      ['PUT', 'security/1/disable'],
      ['PUT', 'bridge/config'],
    ];
    const before = restarts;
    for (const [method, path] of calls) {
      const variants: Record<string, string>[] = [
        { 'content-type': 'application/json' },
        { 'content-type': 'application/json; charset=utf-8', 'content-length': '0' },
      ];
      for (const headers of variants) {
        const r = await rawRequest(gw.url, method, rest('v2', path), { ...headers, authorization: `Bearer ${token}` });
        assert.equal(r.status, 200, `${method} ${path}`);
        assert.deepEqual(JSON.parse(r.text), SUCCESS, `${method} ${path}: ${r.text}`);
      }
    }
    await eventually(() => restarts === before + 2, 5000, 'both reboots asked for a restart');
    assert.equal(gw.gateway.speaker.get().muted, false, 'muted, then unmuted');
  });

  test('"Authorization: \'\' (empty) and a missing header are the same: no token"', async () => {
    const path = rest('v2', 'devices');
    const missing = await rawRequest(gw.url, 'GET', path, { 'content-type': 'application/json' });
    const empty = await rawRequest(gw.url, 'GET', path, { 'content-type': 'application/json', authorization: '' });
    assert.equal(missing.status, 200);
    assert.equal(empty.status, 200);
    assert.equal(missing.text, AUTH_INVALID);
    assert.equal(empty.text, AUTH_INVALID);
    // Where no token is needed, an empty header does not get in the way.
    const bridge = await rawRequest(gw.url, 'GET', rest('v2', 'bridge'), { authorization: '' });
    assert.equal(JSON.parse(bridge.text).error, 0);
    const poll = await rawRequest(gw.url, 'GET', rest('v2', 'bridge/access_token'), { authorization: '' });
    assert.equal(poll.text, LINK_NOT_PRESSED);
    const stream = await openStream(gw.url, ssePath('v2', token), { authorization: '' });
    stream.close();
    assert.equal(stream.status, 200, 'the query token is enough');
    const ev = await sendEvent(gw, token, 'DiscoveryRequest', { endpoints: [] }, { authorization: '' });
    assert.equal(ev.json.header.name, 'ErrorResponse');
    assert.equal(ev.json.payload.type, 'AUTH_FAILURE');
  });

  test('"while not approved: {"error":401,"data":{},"message":"link button not pressed"} with HTTP 200"', async () => {
    gw.gateway.tokens.closeWindow();
    for (const path of [
      `${rest('v2', 'bridge/access_token')}?app_name=waiting`,
      rest('v2', 'bridge/access_token'),
      `${rest('v1', 'bridge/access_token')}?app_name=waiting`,
    ]) {
      const r = await call(gw.url, 'GET', path);
      assert.equal(r.status, 200);
      assert.equal(r.text, LINK_NOT_PRESSED);
    }
  });

  test('"clients poll GET bridge/access_token, sometimes two loops at once, and one library polls once more right after success: duplicate polls get a valid token, the same one per app_name in that window"', async (t) => {
    t.after(() => gw.gateway.tokens.closeWindow());
    assert.equal(gw.gateway.settings.link_window_seconds, 300, 'a press lets clients in for the 5 minutes they poll');
    const poll = (app: string) => call(gw.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=${app}`);
    const loop = async (app: string, everyMs: number, seen: { refused: number }) => {
      for (let i = 0; i < 400; i++) {
        const r = await poll(app);
        assert.equal(r.status, 200);
        if (r.json.error === 0) {
          // One library polls once more right after success.
          const again = await poll(app);
          assert.equal(again.json.error, 0, again.text);
          return { token: r.json.data.token as string, app: r.json.data.app_name, again: again.json.data.token };
        }
        assert.equal(r.text, LINK_NOT_PRESSED);
        seen.refused++;
        await sleep(everyMs);
      }
      throw new Error('never approved');
    };
    const a = { refused: 0 };
    const b = { refused: 0 };
    const loops = Promise.all([loop('poller', 50, a), loop('poller', 80, b)]);
    await eventually(() => a.refused > 0 && b.refused > 0, 10_000, 'both loops polling');
    gw.gateway.tokens.press();
    const [ra, rb] = await loops;
    assert.equal(ra?.app, 'poller');
    assert.equal(ra?.token, rb?.token, 'two loops of one app get the same token');
    assert.equal(ra?.again, ra?.token, 'the poll after success gets it too');
    assert.equal(rb?.again, rb?.token);
    const use = await call(gw.url, 'GET', rest('v2', 'devices'), { token: ra?.token });
    assert.equal(use.json.error, 0, 'the token is valid');
    // Polls answered at once: many concurrent polls all get the token.
    const burst = await Promise.all(Array.from({ length: 20 }, () => poll('poller')));
    assert.ok(burst.every((r) => r.json.data.token === ra?.token));
    // An app that first asks after the press is not approved by it (docs/security.md); its own press is.
    assert.equal((await poll('another-app')).text, LINK_NOT_PRESSED);
    assert.deepEqual(gw.gateway.tokens.press().waiting_apps, ['another-app']);
    const other = await poll('another-app');
    assert.equal(other.json.error, 0);
    assert.notEqual(other.json.data.token, ra?.token, 'another app gets its own token');
  });

  test('"speaker: countdown -1 means ring until cancelled"', async () => {
    await call(gw.url, 'PUT', rest('v2', 'bridge/unmute'), { token });
    const r = await call(gw.url, 'POST', rest('v2', 'hardware/speaker'), {
      token,
      body: { type: 'play_sound', sound: { name: 'alarm1', volume: 60, countdown: -1 } },
    });
    assert.deepEqual(r.json, SUCCESS);
    const playing = gw.gateway.speaker.nowPlaying();
    assert.equal(playing?.name, 'alarm1');
    assert.equal(playing?.until, null, 'no end time: rings until cancelled');
    assert.deepEqual((await call(gw.url, 'PUT', rest('v2', 'bridge/cancel_alarm'), { token })).json, SUCCESS);
    assert.equal(gw.gateway.speaker.nowPlaying(), null);
  });

  test('"beep names: both system Armed/system Disarmed (spec) and systemArmed/systemDisarmed (clients) are accepted"', async () => {
    for (const name of ['system Armed', 'system Disarmed', 'systemArmed', 'systemDisarmed']) {
      const r = await call(gw.url, 'POST', rest('v2', 'hardware/speaker'), {
        token,
        body: { type: 'play_beep', beep: { name, volume: 30 } },
      });
      assert.deepEqual(r.json, SUCCESS, `${name}: ${r.text}`);
    }
    const bad = await call(gw.url, 'POST', rest('v2', 'hardware/speaker'), {
      token,
      body: { type: 'play_beep', beep: { name: 'no such beep', volume: 30 } },
    });
    assert.equal(bad.json.error, 400);
  });
});

// ---------------------------------------------------------------------------------------------

describe('Responses', () => {
  test('"REST failures are HTTP 200 with the envelope {error, data: {}, message}"', async () => {
    const failures: [string, string, unknown][] = [
      ['PUT', 'bridge/config', { volume: 101 }],
      ['PUT', 'devices/no-such-device', { name: 'x' }],
      ['DELETE', 'devices/no-such-device', undefined],
      ['POST', 'hardware/speaker', '{not json'],
      ['POST', 'hardware/speaker', { type: 'play_sound' }],
      ['PUT', 'security/99/enable', undefined],
      ['PUT', 'devices/discovery', { enable: true, type: 'Zigbee' }],
      ['POST', 'devices/no-such-device/query-state/power', { query_state: {} }],
    ];
    for (const [method, path, body] of failures) {
      const r = await call(gw.url, method, rest('v2', path), { token, body });
      assert.equal(r.status, 200, `${method} ${path}: HTTP ${r.status}`);
      assert.deepEqual(Object.keys(r.json), ['error', 'data', 'message'], r.text);
      assert.ok(Number.isInteger(r.json.error) && r.json.error !== 0, r.text);
      assert.deepEqual(r.json.data, {});
      assert.ok(typeof r.json.message === 'string' && r.json.message.length > 0);
    }
  });

  test('"invalid or missing token on REST: {"error":401,"data":{},"message":"headers.Authorization is invalid"}; add-ons compare that message text"', async () => {
    const endpoints: [string, string][] = [
      ['GET', 'bridge/runtime'],
      ['PUT', 'bridge/config'],
      ['PUT', 'bridge/mute'],
      ['PUT', 'bridge/unmute'],
      ['PUT', 'bridge/cancel_alarm'],
      ['POST', 'hardware/reboot'],
      ['POST', 'hardware/speaker'],
      ['PUT', 'devices/discovery'],
      ['GET', 'devices'],
      ['PUT', 'devices/some-serial'],
      ['DELETE', 'devices/some-serial'],
      ['POST', 'devices/some-serial/query-state/power'],
      ['GET', 'security'],
      ['PUT', 'security/enable'],
      ['PUT', 'security/disable'],
      ['PUT', 'security/1/enable'],
      ['PUT', 'security/1/disable'],
      ['GET', 'tts/engines'],
    ];
    const before = restarts;
    for (const [method, path] of endpoints) {
      for (const auth of [undefined, '', 'Bearer ', 'Bearer not-a-token', 'not-a-token']) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (auth !== undefined) headers.authorization = auth;
        const r = await rawRequest(gw.url, method, rest('v2', path), headers);
        assert.equal(r.status, 200, `${method} ${path} (${JSON.stringify(auth)})`);
        assert.equal(r.text, AUTH_INVALID, `${method} ${path} (${JSON.stringify(auth)})`);
      }
    }
    assert.equal(restarts, before, 'nothing was done without a token');
  });

  test('"GET bridge needs no token and must carry ip, mac, name, domain, fw_version"', async () => {
    const variants: Record<string, string>[] = [{}, { authorization: 'Bearer stale-token' }];
    for (const headers of variants) {
      const r = await rawRequest(gw.url, 'GET', rest('v2', 'bridge'), headers);
      assert.equal(r.status, 200);
      const body = JSON.parse(r.text);
      assert.equal(body.error, 0, r.text);
      for (const k of ['ip', 'mac', 'name', 'domain', 'fw_version']) {
        assert.equal(typeof body.data[k], 'string', k);
        assert.ok(body.data[k].length > 0, k);
      }
      assert.match(body.data.ip, /^\d{1,3}(\.\d{1,3}){3}$/);
      assert.match(body.data.mac, /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i);
    }
  });

  test('"clients switch to v2 only when domain is ihost.local (with fw_version >= 2.1.0) or cube.local; fw_version is exactly three numeric parts"', async () => {
    const { data } = (await call(gw.url, 'GET', rest('v1', 'bridge'))).json;
    assert.match(data.fw_version, /^\d+\.\d+\.\d+$/);
    const [major, minor] = data.fw_version.split('.').map(Number);
    const v2 =
      data.domain === 'cube.local' || (data.domain === 'ihost.local' && (major > 2 || (major === 2 && minor >= 1)));
    assert.ok(v2, `clients would stay on v1 with domain ${data.domain} and fw_version ${data.fw_version}`);
  });

  test('"runtime ram_used, cpu_used are integers"', async () => {
    for (const v of ['v1', 'v2']) {
      const { data } = (await call(gw.url, 'GET', rest(v, 'bridge/runtime'), { token })).json;
      for (const k of ['ram_used', 'cpu_used']) {
        assert.ok(Number.isInteger(data[k]), `${k}: ${data[k]}`);
        assert.ok(data[k] >= 0 && data[k] <= 100, `${k}: ${data[k]}`);
      }
    }
  });

  test('"cpu_temp and cpu_temp_unit are always present (a dashboard calls cpu_temp_unit.toUpperCase() unguarded)"', async () => {
    for (const v of ['v1', 'v2']) {
      const { data } = (await call(gw.url, 'GET', rest(v, 'bridge/runtime'), { token })).json;
      assert.ok(Number.isInteger(data.cpu_temp), JSON.stringify(data));
      assert.equal(typeof data.cpu_temp_unit, 'string');
      assert.equal(data.cpu_temp_unit.toUpperCase(), 'C');
    }
  });

  test('"device list: third-party devices carry no protocol"', async () => {
    const svc = await service();
    const [a, b] = await discover(gw.url, token, [
      endpoint('no-protocol-1', svc.url),
      endpoint('no-protocol-2', svc.url, { protocol: 'zigbee' }),
    ]);
    for (const v of ['v1', 'v2']) {
      const list = await listDevices(gw.url, token, v);
      for (const serial of [a, b]) {
        const d = list.find((x) => x.serial_number === serial);
        assert.ok(d, serial);
        assert.ok(!('protocol' in d), JSON.stringify(d));
        assert.ok(!('protocal' in d), JSON.stringify(d));
      }
    }
  });

  test('"every listed device carries tags ({} when none): an add-on reads JSON.stringify(device.tags) on every device in the list"', async (t) => {
    const { g, token: simToken } = await simGateway();
    const svc = await service();
    const [tagged, bare] = await discover(g.url, simToken, [
      endpoint('tasmota-1', svc.url, { tags: { tasmota: { topic: 'kitchen' } } }),
      endpoint('no-tags', svc.url),
    ]);
    t.after(async () => {
      for (const serial of [tagged, bare])
        await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token: simToken });
    });
    // As the Tasmota sync add-on does for every device of GET devices, on both trees.
    const syncedByAddon = (list: any[]) => list.filter((d) => JSON.stringify(d.tags).includes('"tasmota"'));
    for (const v of ['v1', 'v2']) {
      const list = (await call(g.url, 'GET', rest(v, 'devices'), { token: simToken })).json.data.device_list as any[];
      assert.equal(list.length, 6, `${v}: four simulated Zigbee devices and two synced ones`);
      for (const d of list) assert.ok(isPlainObject(d.tags), `${v} ${d.name}: tags ${JSON.stringify(d.tags)}`);
      assert.deepEqual(
        syncedByAddon(list).map((d) => d.serial_number),
        [tagged],
      );
      assert.deepEqual(list.find((d) => d.serial_number === bare)?.tags, {});
      // A Zigbee plug has no tags of its own (a multi-channel switch has its channel labels).
      assert.deepEqual(list.find((d) => d.protocol === 'zigbee' && d.display_category === 'plug')?.tags, {});
    }
    // The device object of addDevice carries it too.
    const stream = await openStream(g.url, ssePath('v1', simToken));
    t.after(() => stream.close());
    const [added] = await discover(g.url, simToken, [endpoint('later', svc.url)]);
    t.after(() => call(g.url, 'DELETE', rest('v2', `devices/${added}`), { token: simToken }));
    const { data } = await nextEvent(stream, 'device#v1#addDevice', (d) => d.payload.serial_number === added);
    assert.deepEqual(data.payload.tags, {});
  });

  test('"tags round-trip verbatim (nested objects, base64 strings, any keys)"', async (t) => {
    const svc = await service();
    const stream = await openStream(gw.url, ssePath('v2', token));
    t.after(() => stream.close());
    const tags = {
      toggle: { '1': 'Lamp', '2': 'Fan' },
      temperature_unit: 'c',
      deviceid: '1000abcdef',
      devicekey: 'q0BqJ/7+Zm9vYmFyYmF6cXV4PT0=',
      blob: Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255]).toString('base64'),
      mqttTopics: {
        stat: 'stat/tasmota_1/RESULT',
        cmnd: 'cmnd/tasmota_1/POWER',
        nested: { deeper: { list: [1, 'two', null, true, { x: 1.5 }] } },
      },
      'key with spaces': 'v',
      'dotted.key': { 'a.b': 'c' },
      ключ: 'значение 家',
      '': 'empty key',
      '10': 'numeric-looking key',
      empty: {},
      list: [],
      nothing: null,
      yes: false,
      zero: 0,
      multiline: 'line 1\nline 2\r\nline 3',
      // Keys that are special to JavaScript objects are plain keys on the wire.
      ...JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"toString":"s"}'),
    };
    const [serial] = await discover(gw.url, token, [endpoint('tagged', svc.url, { tags })]);
    assert.deepEqual((await device(gw.url, token, serial)).tags, tags, 'D3 after DiscoveryRequest');
    const added = await nextEvent(stream, 'device#v2#addDevice', (d) => d.payload.serial_number === serial);
    assert.deepEqual(added.data.payload.tags, tags, 'addDevice');
    await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
      token,
      body: { state: { power: { powerState: 'on' } } },
    });
    assert.deepEqual(svc.received.at(-1)?.body.directive.endpoint.tags, tags, 'directive endpoint.tags');
    // Replaced verbatim by D4 and by DeviceInformationUpdatedReport.
    const next = { ...tags, route: { gateway: 'gw-2', b64: 'AAECAwQ=' }, toggle: { '1': 'Lamp 2' } };
    assert.deepEqual(
      (await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { tags: next } })).json,
      SUCCESS,
    );
    assert.deepEqual((await device(gw.url, token, serial)).tags, next, 'D3 after D4 tags');
    const third = { sync: { source: 'other-gateway', serial: 'abc==' } };
    const info = await sendEvent(
      gw,
      token,
      'DeviceInformationUpdatedReport',
      { capabilities: endpoint('x', svc.url).capabilities, tags: third },
      { endpoint: { serial_number: serial, third_serial_number: 'tagged' } },
    );
    assert.equal(info.json.header.name, 'Response', info.text);
    assert.deepEqual((await device(gw.url, token, serial)).tags, third, 'D3 after DeviceInformationUpdatedReport');
  });

  test('"updateDeviceInfo is forwarded by gateway-to-gateway sync add-ons as a DeviceInformationUpdatedReport: a tags: null in the event becomes delete every tag"', async (t) => {
    const svc = await service();
    const stream = await openStream(gw.url, ssePath('v2', token));
    t.after(() => stream.close());
    const tags = { sync_route: { from: 'gateway-a', id: 'dev-7' } };
    const [serial] = await discover(gw.url, token, [endpoint('synced-rename', svc.url, { tags })]);
    // A rename: the event carries the name, and no tags key at all (not tags: null).
    await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { name: 'Renamed at gateway B' } });
    const { data } = await nextEvent(stream, 'device#v2#updateDeviceInfo', (d) => d.endpoint.serial_number === serial);
    assert.equal(data.payload.name, 'Renamed at gateway B');
    assert.ok(!('tags' in data.payload), JSON.stringify(data.payload));
    // An add-on that forwards an older gateway's event as it is (tags: null) changes no tag.
    const forwarded = await sendEvent(
      gw,
      token,
      'DeviceInformationUpdatedReport',
      { capabilities: (await device(gw.url, token, serial)).capabilities, tags: null },
      { endpoint: { serial_number: serial, third_serial_number: 'synced-rename' } },
    );
    assert.equal(forwarded.json.header.name, 'Response', forwarded.text);
    assert.deepEqual((await device(gw.url, token, serial)).tags, tags);
    // Changed tags are in the event.
    await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { tags: { room: 'hall' } } });
    const retag = await nextEvent(
      stream,
      'device#v2#updateDeviceInfo',
      (d) => d.endpoint.serial_number === serial && d.payload.tags !== undefined,
    );
    assert.deepEqual(retag.data.payload.tags, { room: 'hall' });
  });

  test('"toggle channels are addressed as 1..4 (a Homebridge platform writes {toggle:{"1":{toggleState}}})": Zigbee multi-gang switches number their channels', async () => {
    const zgw = await startGateway({ overrides: { zigbee: { mode: 'sim', sim_devices: 2 } } });
    try {
      const ztoken = zgw.token('homebridge');
      const sw = await waitForValue(
        async () => (await listDevices(zgw.url, ztoken)).find((d) => d.model === 'QBKG24LM'),
        10_000,
        'the simulated two-gang switch',
      );
      const toggles = sw.capabilities.filter((c: { capability: string }) => c.capability === 'toggle');
      assert.deepEqual(
        toggles.map((c: { name: string }) => c.name),
        ['1', '2'],
      );
      // The Zigbee names label the channels, as the spec's tags.toggle does.
      assert.deepEqual(sw.tags?.toggle, { '1': 'left', '2': 'right' });
      const on = await call(zgw.url, 'PUT', rest('v2', `devices/${sw.serial_number}`), {
        token: ztoken,
        body: { state: { toggle: { '1': { toggleState: 'on' } } } },
      });
      assert.deepEqual(on.json, SUCCESS);
      // The former names are still accepted.
      const off = await call(zgw.url, 'PUT', rest('v2', `devices/${sw.serial_number}`), {
        token: ztoken,
        body: { state: { toggle: { right: { toggleState: 'off' } } } },
      });
      assert.deepEqual(off.json, SUCCESS);
      const now = await device(zgw.url, ztoken, sw.serial_number);
      assert.deepEqual(now.state.toggle, { '1': { toggleState: 'on' }, '2': { toggleState: 'off' } });
    } finally {
      await zgw.stop();
    }
  });

  test('"write protocol in output; accept protocal on input"', async () => {
    const svc = await service();
    // Sync add-ons copy the spec's example bodies, which spell it `protocal`.
    const [serial] = await discover(gw.url, token, [endpoint('protocal-input', svc.url, { protocal: 'zigbee' })]);
    const synced = await device(gw.url, token, serial);
    assert.ok(synced, 'accepted');
    assert.ok(!('protocal' in synced));
    // A device that has a protocol (a Zigbee one, from the registry as the Zigbee driver feeds it) writes `protocol`.
    const registry = gw.gateway.devices.registry;
    const zigbee = registry.deviceFound('zigbee2mqtt', {
      driver_ref: 'compat/0x00124b0000000001',
      name: 'Zigbee plug',
      manufacturer: 'Acme',
      model: 'ZP1',
      firmware_version: '',
      display_category: 'plug',
      capabilities: [{ capability: 'power', permission: '1100' }],
      protocol: 'zigbee',
    });
    try {
      const d = await device(gw.url, token, zigbee.serial_number);
      assert.equal(d.protocol, 'zigbee');
      assert.ok(!('protocal' in d));
      for (const x of await listDevices(gw.url, token)) assert.ok(!('protocal' in x), JSON.stringify(x));
    } finally {
      registry.deviceLeft(zigbee.serial_number);
    }
  });

  test('"state values: contact: true means open (add-ons report a door opening as contact: true)"', async (t) => {
    const svc = await service();
    const stream = await openStream(gw.url, ssePath('v2', token));
    t.after(() => stream.close());
    const [serial] = await discover(gw.url, token, [
      endpoint('door', svc.url, {
        display_category: 'contactSensor',
        capabilities: [{ capability: 'contact', permission: '0100' }],
        state: { contact: { contact: false } },
      }),
    ]);
    assert.deepEqual((await device(gw.url, token, serial)).state.contact, { contact: false }, 'closed');
    const r = await sendEvent(
      gw,
      token,
      'DeviceStatesChangeReport',
      { state: { contact: { contact: true } } },
      { endpoint: { serial_number: serial, third_serial_number: 'door' } },
    );
    assert.equal(r.json.header.name, 'Response', r.text);
    const ev = await nextEvent(stream, 'device#v2#updateDeviceState', (d) => d.endpoint.serial_number === serial);
    assert.deepEqual(ev.data.payload, { contact: { contact: true } }, 'the door opened: contact true, as reported');
    assert.deepEqual((await device(gw.url, token, serial)).state.contact, { contact: true });
  });

  test('"a device added by DiscoveryRequest must be in GET devices when the DiscoveryRequest response is returned"', async () => {
    const svc = await service();
    for (const v of ['v1', 'v2']) {
      const eps = [1, 2, 3].map((i) => endpoint(`immediate-${v}-${i}`, svc.url));
      const r = await sendEvent(gw, token, 'DiscoveryRequest', { endpoints: eps }, { apiVersion: v });
      assert.equal(r.json.header.name, 'Response', r.text);
      // Straight after the response, as clients re-read the list.
      const list = await listDevices(gw.url, token, v);
      for (const e of r.json.payload.endpoints) {
        const d = list.find((x) => x.serial_number === e.serial_number);
        assert.ok(d, `${e.third_serial_number} listed`);
        assert.equal(d.third_serial_number, e.third_serial_number);
        assert.equal(d.online, true);
      }
    }
  });

  test('"clients time out after 5 s: every response, including a control call that waits on a third party, comes back well inside that"', async (t) => {
    // The gateway's clock is moved by hand: a control call that waits on a silent third party is
    // answered when the spec's 3 s run out on that clock; D3 and G4 meanwhile at once.
    const clock = new ManualClock();
    const gw2 = await startGateway({ gatewayOptions: { clock } });
    t.after(() => gw2.stop());
    const token2 = gw2.token('compat-clock');
    const silent = await service(() => {}); // never answers
    const [a, b] = await discover(gw2.url, token2, [
      endpoint('silent-1', silent.url),
      endpoint('silent-2', silent.url),
    ]);
    const d4 = call(gw2.url, 'PUT', rest('v2', `devices/${a}`), {
      token: token2,
      body: { state: { power: { powerState: 'on' } } },
    });
    const d4v1 = call(gw2.url, 'PUT', rest('v1', `devices/${b}`), {
      token: token2,
      body: { state: { brightness: { brightness: 50 } } },
    });
    // While both wait, without the clock moving, D3 and G4 answer.
    assert.equal((await call(gw2.url, 'GET', rest('v2', 'devices'), { token: token2 })).json.error, 0);
    assert.equal((await call(gw2.url, 'GET', rest('v2', 'bridge'))).json.error, 0);
    await eventually(() => silent.received.length === 2, 5000, 'both directives were sent');
    const both = Promise.all([d4, d4v1]);
    const { value, elapsedMs } = await advanceUntil(clock, both, { stepMs: 100 });
    assert.equal(elapsedMs, 3000, "answered when the spec's 3 s ran out, well inside the 5 s clients wait");
    assert.equal(value[0].json.error, 110019, JSON.stringify(value[0].json));
    assert.equal(value[1].json.error, 110019);
  });
});

// ---------------------------------------------------------------------------------------------

describe('Third-party event endpoint (T1)', () => {
  test('"reply shape {"header":{"name":"Response"|"ErrorResponse","message_id","version"},"payload":{...}}, HTTP 200; a success always has a payload object"', async () => {
    const svc = await service();
    const shape = (
      r: { status: number; json: any; text: string },
      name: string,
      messageId: string,
      version: string,
    ) => {
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(Object.keys(r.json), ['header', 'payload'], r.text);
      assert.deepEqual(r.json.header, { name, message_id: messageId, version }, r.text);
      assert.ok(
        r.json.payload !== null && typeof r.json.payload === 'object' && !Array.isArray(r.json.payload),
        r.text,
      );
    };
    const ep = { serial_number: '', third_serial_number: 'shape' };
    const events: [string, unknown][] = [
      ['DiscoveryRequest', { endpoints: [endpoint('shape', svc.url)] }],
      ['DeviceStatesChangeReport', { state: { power: { powerState: 'on' } } }],
      ['DeviceStatesChangeReport', { state: { power: { powerState: 'on' } } }], // changes nothing: still a payload
      ['DeviceOnlineChangeReport', { online: false }],
      ['DeviceOnlineChangeReport', { online: true }],
      ['DeviceInformationUpdatedReport', { capabilities: endpoint('shape', svc.url).capabilities }],
      ['RegisterTTSEngine', { service_address: svc.url, name: 'Shape TTS' }],
    ];
    for (const [name, payload] of events) {
      for (const version of ['1', '2']) {
        const messageId = randomUUID();
        const r = await sendEvent(gw, token, name, payload, {
          version,
          messageId,
          endpoint: name === 'DiscoveryRequest' || name === 'RegisterTTSEngine' ? undefined : ep,
        });
        shape(r, 'Response', messageId, version);
        if (name === 'DiscoveryRequest') ep.serial_number = r.json.payload.endpoints[0].serial_number;
        if (name === 'DiscoveryRequest') assert.deepEqual(r.json.payload.endpoints[0].third_serial_number, 'shape');
      }
    }
    // Failures keep the shape, with payload {type, description}.
    const errors: [string, unknown, unknown][] = [
      ['DeviceStatesChangeReport', { state: {} }, { serial_number: 'no-such-device' }],
      ['DiscoveryRequest', { endpoints: [{ ...endpoint('bad', svc.url), service_address: '' }] }, undefined],
      ['NoSuchEvent', {}, undefined],
    ];
    for (const [name, payload, endpointValue] of errors) {
      const messageId = randomUUID();
      const r = await sendEvent(gw, token, name, payload, { version: '2', messageId, endpoint: endpointValue });
      shape(r, 'ErrorResponse', messageId, '2');
      assert.equal(r.json.payload.type, 'INVALID_PARAMETERS', r.text);
      assert.equal(typeof r.json.payload.description, 'string');
    }
    const notJson = await call(gw.url, 'POST', rest('v2', 'thirdparty/event'), { token, body: '{"event":' });
    shape(notJson, 'ErrorResponse', '', '1');
    assert.equal(notJson.json.payload.type, 'INVALID_PARAMETERS');
  });

  test('"auth failure: ErrorResponse with payload {type: AUTH_FAILURE, description: headers.Authorization is invalid}"', async () => {
    for (const authorization of ['', 'Bearer ', 'Bearer not-a-token', 'not-a-token']) {
      const messageId = randomUUID();
      const r = await sendEvent(
        gw,
        token,
        'DiscoveryRequest',
        { endpoints: [] },
        { authorization, messageId, version: '2' },
      );
      assert.equal(r.status, 200);
      assert.deepEqual(
        r.json,
        {
          header: { name: 'ErrorResponse', message_id: messageId, version: '2' },
          payload: { type: 'AUTH_FAILURE', description: 'headers.Authorization is invalid' },
        },
        JSON.stringify(authorization),
      );
    }
    const none = await rawRequest(
      gw.url,
      'POST',
      rest('v1', 'thirdparty/event'),
      { 'content-type': 'application/json' },
      JSON.stringify({ event: { header: { name: 'DiscoveryRequest', message_id: 'm-1', version: '1' }, payload: {} } }),
    );
    assert.deepEqual(JSON.parse(none.text), {
      header: { name: 'ErrorResponse', message_id: 'm-1', version: '1' },
      payload: { type: 'AUTH_FAILURE', description: 'headers.Authorization is invalid' },
    });
  });

  test('"RegisterTTSEngine arrives here: payload {service_address, name}; reply payload {engine_id: "<string>"}"', async () => {
    const engine = await service();
    const messageId = randomUUID();
    const r = await sendEvent(
      gw,
      token,
      'RegisterTTSEngine',
      { service_address: engine.url, name: 'Compat TTS' },
      { messageId },
    );
    assert.deepEqual(r.json.header, { name: 'Response', message_id: messageId, version: '1' });
    assert.deepEqual(Object.keys(r.json.payload), ['engine_id']);
    assert.equal(typeof r.json.payload.engine_id, 'string');
    assert.ok(r.json.payload.engine_id.length > 0);
    const again = await sendEvent(
      gw,
      token,
      'RegisterTTSEngine',
      { service_address: engine.url, name: 'Compat TTS' },
      {
        apiVersion: 'v1',
        version: '2',
      },
    );
    assert.equal(
      again.json.payload.engine_id,
      r.json.payload.engine_id,
      'an add-on re-registering on start keeps its id',
    );
  });
});

// ---------------------------------------------------------------------------------------------

describe('Directives to a service address (T2)', () => {
  test('"POST with Content-Type: application/json, body {directive:{header, endpoint, payload}}; endpoint.tags must be the device\'s stored tags"', async () => {
    const svc = await service();
    const tags = { route: { hub: 'tasmota', topic: 'cmnd/plug_7/POWER' }, key: 'c2VjcmV0PT0=' };
    const [tagged, plain] = await discover(gw.url, token, [
      endpoint('routed', svc.url, { tags }),
      endpoint('untagged', svc.url),
    ]);
    const control = (serial: string) =>
      call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { state: { power: { powerState: 'on' } } } });
    svc.received.length = 0;
    assert.deepEqual((await control(tagged)).json, SUCCESS);
    const got = svc.received[0] as Received;
    assert.match(String(got.headers['content-type']), /^application\/json\b/);
    // With a Content-Length, not chunked: small providers read exactly that many bytes.
    assert.equal(got.headers['content-length'], String(Buffer.byteLength(got.raw)));
    assert.equal(got.headers['transfer-encoding'], undefined);
    assert.deepEqual(Object.keys(got.body), ['directive']);
    assert.deepEqual(Object.keys(got.body.directive).sort(), ['endpoint', 'header', 'payload']);
    assert.equal(got.body.directive.header.name, 'UpdateDeviceStates');
    assert.match(
      got.body.directive.header.message_id,
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.deepEqual(got.body.directive.endpoint, { serial_number: tagged, third_serial_number: 'routed', tags });
    assert.deepEqual(got.body.directive.payload, { state: { power: { powerState: 'on' } } });
    // The stored tags as they are now: after D4 replaces them.
    const replaced = { route: { hub: 'tasmota', topic: 'cmnd/plug_8/POWER' } };
    await call(gw.url, 'PUT', rest('v2', `devices/${tagged}`), { token, body: { tags: replaced } });
    await control(tagged);
    assert.deepEqual(svc.received.at(-1)?.body.directive.endpoint.tags, replaced);
    await control(plain);
    assert.deepEqual(svc.received.at(-1)?.body.directive.endpoint, {
      serial_number: plain,
      third_serial_number: 'untagged',
      tags: {},
    });
  });

  test('"success replies vary: header name UpdateDeviceStatesResponse, Response, or the directive\'s own name; with or without the event wrapper; sometimes text/html: anything that is not ErrorResponse is success"', async () => {
    const svc = await service();
    const [serial] = await discover(gw.url, token, [endpoint('odd-replies', svc.url)]);
    const header = (b: any, name: string) => ({ name, message_id: b.directive.header.message_id, version: '1' });
    const forms: [string, ServiceHandler][] = [
      [
        'wrapped UpdateDeviceStatesResponse',
        (b, _req, res) => sendJson(res, { event: { header: header(b, 'UpdateDeviceStatesResponse'), payload: {} } }),
      ],
      ['wrapped Response', (b, _req, res) => sendJson(res, { event: { header: header(b, 'Response'), payload: {} } })],
      [
        'wrapped own name',
        (b, _req, res) => sendJson(res, { event: { header: header(b, 'UpdateDeviceStates'), payload: {} } }),
      ],
      [
        'unwrapped UpdateDeviceStatesResponse',
        (b, _req, res) => sendJson(res, { header: header(b, 'UpdateDeviceStatesResponse'), payload: {} }),
      ],
      ['unwrapped Response', (b, _req, res) => sendJson(res, { header: header(b, 'Response'), payload: {} })],
      ['unwrapped own name', (b, _req, res) => sendJson(res, { header: header(b, 'UpdateDeviceStates'), payload: {} })],
      ['served as text/html', (b, _req, res) => sendJson(res, successReply(b), 'text/html; charset=utf-8')],
      [
        'unwrapped, text/html, no payload',
        (b, _req, res) => sendJson(res, { header: header(b, 'Response') }, 'text/html'),
      ],
      ['empty body', (_b, _req, res) => sendJson(res, '')],
      ['an HTML page', (_b, _req, res) => sendJson(res, '<html><body>OK</body></html>', 'text/html')],
    ];
    let level = 20;
    for (const [what, answer] of forms) {
      svc.handle(answer);
      level++;
      const r = await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
        token,
        body: { state: { brightness: { brightness: level } } },
      });
      assert.deepEqual(r.json, SUCCESS, `${what}: ${r.text}`);
      assert.equal((await device(gw.url, token, serial)).state.brightness.brightness, level, what);
    }
    // An ErrorResponse is a failure, wrapped or not.
    svc.handle((b, _req, res) =>
      sendJson(res, { event: { header: header(b, 'ErrorResponse'), payload: { type: 'INVALID_DIRECTIVE' } } }),
    );
    assert.equal(
      (
        await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
          token,
          body: { state: { brightness: { brightness: 99 } } },
        })
      ).json.error,
      110006,
    );
    svc.handle((b, _req, res) =>
      sendJson(res, { header: header(b, 'ErrorResponse'), payload: { type: 'ENDPOINT_UNREACHABLE' } }, 'text/html'),
    );
    assert.equal(
      (
        await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
          token,
          body: { state: { brightness: { brightness: 99 } } },
        })
      ).json.error,
      110005,
    );
  });

  test('"replies can be null": a null reply is a success', async () => {
    const svc = await service((_b, _req, res) => sendJson(res, 'null'));
    const [serial] = await discover(gw.url, token, [endpoint('null-reply', svc.url)]);
    const r = await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
      token,
      body: { state: { power: { powerState: 'on' } } },
    });
    assert.deepEqual(r.json, SUCCESS);
    assert.deepEqual((await device(gw.url, token, serial)).state.power, { powerState: 'on' });
  });

  test('"replies can never come: time out (3 s per spec)"', async (t) => {
    const clock = new ManualClock();
    const gw2 = await startGateway({ gatewayOptions: { clock } });
    t.after(() => gw2.stop());
    const token2 = gw2.token('compat-never');
    const silent = await service(() => {});
    const [serial] = await discover(gw2.url, token2, [endpoint('never-answers', silent.url)]);
    const answer = call(gw2.url, 'PUT', rest('v2', `devices/${serial}`), {
      token: token2,
      body: { state: { power: { powerState: 'on' } } },
    });
    await eventually(() => silent.received.length === 1, 5000, 'the directive was sent');
    const { value: r, elapsedMs } = await advanceUntil(clock, answer, { stepMs: 100 });
    assert.equal(elapsedMs, 3000, 'waited the 3 s of the spec (on the gateway clock), no more');
    assert.equal(r.json.error, 110019, r.text);
    assert.deepEqual(r.json.data, {});
    assert.match(r.json.message, /the service could not be reached or answered badly$/);
  });

  test('"a provider may hold directives for one device for about 200 ms and answer them together: concurrent directives to one device are normal"', async () => {
    const held: { body: any; res: ServerResponse }[] = [];
    let holding = false;
    const batches: number[] = [];
    const svc = await service((body, _req, res) => {
      held.push({ body, res });
      if (holding) return;
      holding = true;
      setTimeout(() => {
        holding = false;
        const batch = held.splice(0);
        batches.push(batch.length);
        // Answered together, in reverse order: each reply still goes to its own request.
        for (const h of batch.reverse()) sendJson(h.res, successReply(h.body));
      }, 200);
    });
    const [serial] = await discover(gw.url, token, [endpoint('batched', svc.url)]);
    const levels = [11, 22, 33, 44, 55, 66];
    const results = await Promise.all(
      levels.map((brightness) =>
        call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
          token,
          body: { state: { brightness: { brightness } } },
        }),
      ),
    );
    for (const r of results) assert.deepEqual(r.json, SUCCESS, r.text);
    assert.equal(svc.received.length, levels.length, 'every directive reached the provider');
    const sent = svc.received.map((x) => x.body.directive);
    assert.equal(new Set(sent.map((d) => d.header.message_id)).size, levels.length, 'distinct message ids');
    assert.deepEqual(sent.map((d) => d.payload.state.brightness.brightness).sort(), [...levels].sort());
    assert.equal(
      batches.reduce((a, b) => a + b, 0),
      levels.length,
    );
    const d = await device(gw.url, token, serial);
    assert.ok(levels.includes(d.state.brightness.brightness), JSON.stringify(d.state));
    assert.equal(d.online, true);
  });
});

// ---------------------------------------------------------------------------------------------

describe('Event stream', () => {
  test('"token only in the query string: ?access_token="', async () => {
    for (const v of ['v1', 'v2']) {
      const s = await openStream(gw.url, ssePath(v, token));
      const head = await s.waitFor((fs) => fs.length > 0);
      s.close();
      assert.equal(s.status, 200);
      assert.match(String(s.headers['content-type']), /^text\/event-stream/);
      assert.ok(head.length > 0);
    }
  });

  test('"a bad token gets a non-200 status other than 500/502/503/504 (for example 401) with the JSON body of the spec; never a 200 stream"', async () => {
    for (const path of [
      ssePath('v2', 'not-a-token'),
      ssePath('v1', 'not-a-token'),
      ssePath('V2', ''),
      '/open-api/v2/sse/bridge',
      `/open-api/v2/sse/bridge?token=${encodeURIComponent(token)}`,
    ]) {
      const r = await rawRequest(gw.url, 'GET', path, { accept: 'text/event-stream' });
      assert.equal(r.status, 401, path);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.deepEqual(JSON.parse(r.text), SSE_INVALID, path);
    }
  });

  test('"a bad token gets a non-200 status ... so EventSource clients stop instead of retrying forever"', async (t) => {
    let attempts = 0;
    const es = new EventSource(`${gw.url}${ssePath('v2', 'not-a-token')}`, {
      fetch: (url, init) => {
        attempts++;
        return fetch(url, init);
      },
    });
    t.after(() => es.close());
    let errors = 0;
    es.addEventListener('error', () => errors++);
    await eventually(() => es.readyState === EventSource.CLOSED, 5000, 'EventSource closed');
    assert.equal(attempts, 1, 'no retry');
    assert.ok(errors >= 1);
  });

  test('"each event is event: <name> and ONE data: line of JSON (several clients read only the first data line)"', async (t) => {
    const svc = await service();
    const stream = await openStream(gw.url, ssePath('v2', token));
    t.after(() => stream.close());
    // Characters some clients split lines on: JSON escapes CR and LF; Python's str.splitlines (the
    // sseclient library) also splits on NEL, LINE SEPARATOR and PARAGRAPH SEPARATOR.
    const tags = {
      note: 'line 1\nline 2\r\nline 3\rline 4',
      separators: 'a\u0085b\u2028c\u2029d\u000be\u000cf\u001cg\u001dh\u001ei',
      json: '{"a":\n1}',
    };
    const [serial] = await discover(gw.url, token, [
      endpoint('one-data-line', svc.url, { name: 'Lamp\nwith a newline', tags }),
    ]);
    const ep = { serial_number: serial, third_serial_number: 'one-data-line' };
    await sendEvent(
      gw,
      token,
      'DeviceStatesChangeReport',
      { state: { brightness: { brightness: 77 } } },
      { endpoint: ep },
    );
    await sendEvent(
      gw,
      token,
      'DeviceInformationUpdatedReport',
      { capabilities: endpoint('x', svc.url).capabilities, tags: { ...tags, more: '\n\n' } },
      { endpoint: ep },
    );
    await sendEvent(gw, token, 'DeviceOnlineChangeReport', { online: false }, { endpoint: ep });
    await call(gw.url, 'PUT', rest('v2', 'security/disable'), { token });
    await call(gw.url, 'PUT', rest('v2', 'security/2/enable'), { token });
    await call(gw.url, 'PUT', rest('v2', 'security/disable'), { token });
    await alarmThenCancel(gw.url, token, 'one-data-line-smoke');
    await call(gw.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
    await nextEvent(stream, 'device#v2#deleteDevice', (d) => d.endpoint.serial_number === serial);
    const names = new Set<string>();
    for (const f of stream.events()) {
      names.add(f.event as string);
      const lines = f.raw.split('\n');
      assert.equal(lines.filter((l) => l.startsWith('event:')).length, 1, f.raw);
      assert.equal(lines.filter((l) => l.startsWith('data:')).length, 1, f.raw);
      assert.ok(!f.raw.includes('\r'), 'no bare CR inside a frame');
      assert.ok(!hasLineBreak(f.data[0] as string), `nothing any client takes for a line break: ${f.data[0]}`);
      assert.doesNotThrow(() => JSON.parse(f.data[0] as string), f.raw);
    }
    for (const n of ['addDevice', 'updateDeviceState', 'updateDeviceInfo', 'updateDeviceOnline', 'deleteDevice']) {
      assert.ok(names.has(`device#v2#${n}`), `saw ${n}: ${[...names]}`);
    }
    assert.ok(names.has('security#v2#updateArmState') && names.has('bridge#v2#updateAlarmState'), [...names].join());
    const added = stream.events().find((f) => f.event === 'device#v2#addDevice' && f.data[0]?.includes(serial));
    assert.deepEqual(JSON.parse(added?.data[0] as string).payload.tags, tags, 'the one data line holds everything');
  });

  test('"heartbeats are comment lines (: ping) at least every 30 s"', async (t) => {
    const stream = await openStream(gw.url, ssePath('v2', token));
    t.after(() => stream.close());
    await stream.waitFor((fs) => fs.some((f) => f.comments.includes('ping')), 10_000);
    const ping = stream.frames.find((f) => f.comments.includes('ping')) as Frame;
    assert.equal(ping.raw, ': ping', 'a bare comment frame');
    assert.ok(loadSettings().sse.heartbeat_seconds <= 30, 'the default interval');
    const def = settingDefs.find((d) => d.key === 'sse.heartbeat_seconds');
    assert.ok(def && 'max' in def.schema && (def.schema.max ?? Infinity) <= 30, 'no setting makes it longer than 30 s');
  });

  test('"security#v2#updateArmState with {payload:{arm_state, detail:{sid, name}}}: the first key of payload is arm_state"', async (t) => {
    await call(gw.url, 'PUT', rest('v2', 'security/disable'), { token });
    const [s2, s1] = await Promise.all([
      openStream(gw.url, ssePath('v2', token)),
      openStream(gw.url, ssePath('v1', token)),
    ]);
    t.after(() => {
      s1.close();
      s2.close();
    });
    assert.deepEqual((await call(gw.url, 'PUT', rest('v2', 'security/1/enable'), { token })).json, SUCCESS);
    assert.deepEqual((await call(gw.url, 'PUT', rest('v2', 'security/1/disable'), { token })).json, SUCCESS);
    const arming = await nextEvent(s2, 'security#v2#updateArmState', (d) => d.payload.arm_state === 'arming');
    const disarming = await nextEvent(s2, 'security#v2#updateArmState', (d) => d.payload.arm_state === 'disarming');
    for (const e of [arming, disarming]) {
      assert.deepEqual(Object.keys(e.data), ['payload']);
      assert.equal(Object.keys(e.data.payload)[0], 'arm_state');
      assert.deepEqual(e.data.payload.detail, { sid: 1, name: 'home_mode' });
    }
    const v1 = await nextEvent(s1, 'security#v1#updateArmState', (d) => d.payload.arm_state === 'arming');
    assert.deepEqual(v1.data, arming.data, 'the same event under the v1 name on a v1 stream');
  });

  test('"bridge#v2#updateAlarmState with {payload:{alarm_state}}: the first key of payload is alarm_state"', async (t) => {
    const stream = await openStream(gw.url, ssePath('v2', token));
    t.after(() => stream.close());
    // Smoke sets the alarm off; cancel_alarm ends it: alarm_state back to normal.
    await alarmThenCancel(gw.url, token, 'alarm-shape');
    for (const state of ['alarming', 'normal']) {
      const e = await nextEvent(stream, 'bridge#v2#updateAlarmState', (d) => d.payload.alarm_state === state);
      assert.deepEqual(Object.keys(e.data), ['payload']);
      assert.deepEqual(Object.keys(e.data.payload), ['alarm_state']);
    }
  });

  test('"id: lines and retry: are harmless to every client"', async (t) => {
    const svc = await service();
    const [serial] = await discover(gw.url, token, [endpoint('ids', svc.url)]);
    const ep = { serial_number: serial, third_serial_number: 'ids' };
    const stream = await openStream(gw.url, ssePath('v2', token));
    const es = new EventSource(`${gw.url}${ssePath('v2', token)}`);
    t.after(() => {
      stream.close();
      es.close();
    });
    const got: MessageEvent[] = [];
    es.addEventListener('device#v2#updateDeviceState', (e) => got.push(e));
    await eventually(() => es.readyState === EventSource.OPEN, 5000, 'EventSource open');
    for (const brightness of [31, 32, 33]) {
      await sendEvent(
        gw,
        token,
        'DeviceStatesChangeReport',
        { state: { brightness: { brightness } } },
        { endpoint: ep },
      );
    }
    await stream.waitFor(() => stream.events().filter((f) => f.event === 'device#v2#updateDeviceState').length >= 3);
    await eventually(() => got.length >= 3, 5000, 'three events on the EventSource');
    assert.match(stream.text(), /^retry: \d+\n/);
    const frames = stream.events().filter((f) => f.event === 'device#v2#updateDeviceState');
    const ids = frames.map((f) => Number(f.id));
    assert.ok(
      ids.every((id, i) => Number.isSafeInteger(id) && (i === 0 || id > (ids[i - 1] as number))),
      `${ids}`,
    );
    assert.deepEqual(
      got.map((e) => e.lastEventId),
      frames.map((f) => f.id),
    );
    assert.deepEqual(
      got.map((e) => JSON.parse(e.data).payload.brightness.brightness),
      [31, 32, 33],
    );
  });

  test('"Last-Event-ID is sent back by the common EventSource library after a reconnect": the missed events come first', async (t) => {
    const svc = await service();
    const [serial] = await discover(gw.url, token, [endpoint('resume', svc.url)]);
    const ep = { serial_number: serial, third_serial_number: 'resume' };
    const report = (brightness: number) =>
      sendEvent(gw, token, 'DeviceStatesChangeReport', { state: { brightness: { brightness } } }, { endpoint: ep });
    const mine = (f: Frame) => f.event === 'device#v2#updateDeviceState' && (f.data[0] ?? '').includes(serial);

    // Raw: a reconnect that sends Last-Event-ID gets what came after it.
    const first = await openStream(gw.url, ssePath('v2', token));
    await report(51);
    await first.waitFor((fs) => fs.some(mine));
    const seen = first.events().find(mine) as Frame;
    first.close();
    await report(52);
    await report(53);
    const resumed = await openStream(gw.url, ssePath('v2', token), { 'last-event-id': seen.id as string });
    t.after(() => resumed.close());
    await resumed.waitFor((fs) => fs.filter(mine).length >= 2);
    assert.deepEqual(
      resumed
        .events()
        .filter(mine)
        .map((f) => JSON.parse(f.data[0] as string).payload.brightness.brightness),
      [52, 53],
    );

    // The real library: cut its connection from the server side, publish while it is away. Its
    // own connection pool makes its connection a new one, the only one opened until it is open.
    const sockets = new Set<Socket>();
    const track = (socket: Socket) => sockets.add(socket);
    gw.gateway.app.server.on('connection', track);
    const agent = new Agent();
    const lastIds: (string | null)[] = [];
    const es = new EventSource(`${gw.url}${ssePath('v2', token)}`, {
      fetch: (url, init) => {
        lastIds.push(new Headers(init?.headers as Record<string, string>).get('last-event-id'));
        return undiciFetch(url, { ...init, dispatcher: agent } as Parameters<typeof undiciFetch>[1]) as any;
      },
    });
    t.after(async () => {
      es.close();
      gw.gateway.app.server.off('connection', track);
      await agent.close();
    });
    const got: { id: string; level: number }[] = [];
    let opens = 0;
    es.addEventListener('open', () => opens++);
    es.addEventListener('device#v2#updateDeviceState', (e) => {
      const data = JSON.parse(e.data);
      if (data.endpoint.serial_number === serial)
        got.push({ id: e.lastEventId, level: data.payload.brightness.brightness });
    });
    await eventually(() => opens === 1, 5000, 'EventSource open');
    gw.gateway.app.server.off('connection', track);
    assert.equal(sockets.size, 1, 'the EventSource connection');
    await report(61);
    await eventually(() => got.length === 1, 5000, 'first event');
    for (const s of sockets) s.destroy();
    await eventually(() => es.readyState === EventSource.CONNECTING, 5000, 'the client noticed the cut');
    await report(62);
    await report(63);
    await eventually(() => opens === 2, 15_000, 'EventSource reconnected');
    await report(64);
    await eventually(() => got.length === 4, 5000, 'the missed events and the live one');
    assert.deepEqual(
      got.map((g) => g.level),
      [61, 62, 63, 64],
    );
    assert.equal(lastIds[0], null);
    assert.equal(lastIds[1], got[0]?.id, 'the library sent Last-Event-ID');
  });
});

// ---------------------------------------------------------------------------------------------

describe('TTS and media', () => {
  test('"GET tts/engines: clients treat data as holding the engines [{id, name}]; serve data.engines and keep each engine as {id, name}"', async () => {
    const engine = await service();
    const r = await sendEvent(gw, token, 'RegisterTTSEngine', { service_address: engine.url, name: 'Listed TTS' });
    const id = r.json.payload.engine_id;
    for (const v of ['v1', 'v2']) {
      const list = await call(gw.url, 'GET', rest(v, 'tts/engines'), { token });
      assert.equal(list.json.error, 0, list.text);
      assert.deepEqual(Object.keys(list.json.data), ['engines']);
      assert.ok(Array.isArray(list.json.data.engines));
      for (const e of list.json.data.engines) {
        assert.deepEqual(Object.keys(e).sort(), ['id', 'name']);
        assert.equal(typeof e.id, 'string');
        assert.equal(typeof e.name, 'string');
      }
      assert.deepEqual(
        list.json.data.engines.find((e: { id: string }) => e.id === id),
        { id, name: 'Listed TTS' },
      );
    }
  });

  test('"that add-on then registers again on every pairing (with a new token): one engine per service address, same id"', async () => {
    const engine = await service();
    const first = await sendEvent(gw, token, 'RegisterTTSEngine', {
      service_address: engine.url,
      name: 'Re-paired TTS',
    });
    // Paired again: a new link press, a new token, the same add-on registering again.
    const second = await sendEvent(gw, gw.token('tts-addon-again'), 'RegisterTTSEngine', {
      service_address: engine.url,
      name: 'Re-paired TTS',
    });
    assert.equal(second.json.payload.engine_id, first.json.payload.engine_id);
    const list = (await call(gw.url, 'GET', rest('v2', 'tts/engines'), { token })).json.data.engines;
    assert.equal(list.filter((e: { name: string }) => e.name === 'Re-paired TTS').length, 1, JSON.stringify(list));
  });

  test('"one engine per service address": the same address with the same token gets its id again; the same name from another address is a second engine', async () => {
    const [one, two] = [await service(), await service()];
    const register = (address: string, as = token) =>
      sendEvent(gw, as, 'RegisterTTSEngine', { service_address: address, name: 'Twin TTS' });
    const first = (await register(one.url)).json.payload.engine_id;
    assert.equal((await register(one.url)).json.payload.engine_id, first, 'registered again: the same id');
    const other = (await register(two.url)).json.payload.engine_id;
    assert.notEqual(other, first, 'another service address: another engine');
    const list = (await call(gw.url, 'GET', rest('v2', 'tts/engines'), { token })).json.data.engines;
    assert.deepEqual(
      list.filter((e: { name: string }) => e.name === 'Twin TTS').map((e: { id: string }) => e.id),
      [first, other],
    );
  });

  test('"an engine registers with RegisterTTSEngine (above)": the engine_id of the reply is the id listed', async () => {
    const engine = await service();
    const r = await sendEvent(
      gw,
      token,
      'RegisterTTSEngine',
      { service_address: engine.url, name: 'Add-on TTS' },
      { apiVersion: 'v1' },
    );
    assert.equal(r.json.header.name, 'Response', r.text);
    const list = (await call(gw.url, 'GET', rest('v1', 'tts/engines'), { token })).json.data.engines;
    assert.ok(
      list.some((e: { id: string; name: string }) => e.id === r.json.payload.engine_id && e.name === 'Add-on TTS'),
    );
    const bad = await sendEvent(gw, token, 'RegisterTTSEngine', { name: 'No address' });
    assert.equal(bad.json.header.name, 'ErrorResponse');
    assert.equal(bad.json.payload.type, 'INVALID_PARAMETERS');
  });
});

// ---------------------------------------------------------------------------------------------

describe('Host names the add-ons use', () => {
  test('"requests arrive with Host: ihost (or ihost.local), token requests included. They must pair and work like any client"', async () => {
    for (const host of ['ihost', 'ihost.local', `ihost:${new URL(gw.url).port}`]) {
      const app = `Paral-Sync-${host.length}`;
      const poll = () =>
        rawRequest(gw.url, 'GET', `${rest('v1', 'bridge/access_token')}?app_name=${app}`, {
          host,
          'content-type': 'application/json',
        });
      assert.equal((await poll()).text, LINK_NOT_PRESSED, `${host}: waiting`);
      gw.gateway.tokens.press();
      let addonToken: string;
      try {
        const granted = JSON.parse((await poll()).text);
        assert.equal(granted.error, 0, `${host}: ${JSON.stringify(granted)}`);
        addonToken = granted.data.token;
      } finally {
        gw.gateway.tokens.closeWindow();
      }
      const devices = await rawRequest(gw.url, 'GET', rest('v1', 'devices'), {
        host,
        authorization: `Bearer ${addonToken}`,
      });
      assert.equal(JSON.parse(devices.text).error, 0, `${host}: the add-on works with its token`);
    }
  });
});

describe('Seen in clients, optional', () => {
  test('"GET thirdparty/debug-log/{serial}?type=directive_log|event_log&limit&from_index...": success with an empty list for a device that exists but is not third-party', async () => {
    const { g, token: simToken } = await simGateway();
    const plug = g.gateway.devices.registry.list().find((d) => d.display_category === 'plug');
    assert.ok(plug, 'a simulated Zigbee plug');
    for (const v of ['v1', 'v2']) {
      const r = await call(
        g.url,
        'GET',
        `${rest(v, `thirdparty/debug-log/${plug.serial_number}`)}?type=directive_log&limit=10&from_index=0`,
        { token: simToken },
      );
      assert.deepEqual(r.json, {
        error: 0,
        data: { serial_number: plug.serial_number, type: 'directive_log', total: 0, next_index: 0, logs: [] },
        message: 'success',
      });
    }
  });

  test('"A .NET client reads the stream\'s retry: field as seconds ... EventSource libraries read milliseconds"', async () => {
    /** The head of a stream opened with these headers (no Accept at all, as a bare HttpClient). */
    const head = (headers: Record<string, string>) =>
      new Promise<string>((resolve, reject) => {
        const req = request(`${gw.url}${ssePath('v1', token)}`, { headers }, (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (c: string) => {
            text += c;
            if (text.includes(': connected\n\n')) {
              req.destroy();
              resolve(text);
            }
          });
        });
        req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
        req.end();
      });
    const dotnet = await head({});
    assert.doesNotMatch(
      dotnet,
      /retry:/,
      'no retry: for a client that does not speak EventSource (it keeps its own 5 s)',
    );
    assert.match(dotnet, /^: connected\n\n/);
    const eventSource = await head({ accept: 'text/event-stream' });
    assert.match(eventSource, /^retry: 3000\n: connected\n\n/, 'milliseconds for an EventSource');
    // The rule rests on this: an EventSource (the library clients use) sends that Accept header.
    let accept: string | undefined;
    const probe = createServer((req, res) => {
      accept = req.headers.accept;
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end();
    });
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const es = new EventSource(`http://127.0.0.1:${(probe.address() as { port: number }).port}/`);
    await eventually(() => accept !== undefined, 5000, 'the EventSource request');
    es.close();
    await new Promise<void>((r) => probe.close(() => r()));
    assert.match(accept ?? '', /text\/event-stream/);
  });

  test('"A .NET client calls the panel-only screen/* paths and expects an envelope answer it can read as not supported; an HTTP 404 makes it throw"', async () => {
    for (const v of ['v1', 'v2']) {
      for (const [method, path, body] of [
        ['PUT', 'screen/display', { auto_screen_off: { enable: false } }],
        ['PUT', 'screen/brightness', { mode: 'auto' }],
        ['GET', 'screen/display', undefined],
      ] as const) {
        const r = await call(gw.url, method, rest(v, path), { token, body });
        assert.equal(r.status, 200, `${method} ${path}`);
        assert.deepEqual(Object.keys(r.json), ['error', 'data', 'message']);
        assert.equal(r.json.error, 404);
        assert.deepEqual(r.json.data, {});
        assert.match(r.json.message, new RegExp(`^${path}: not supported \\(this gateway has no screen`));
      }
    }
    assert.equal((await call(gw.url, 'PUT', rest('v1', 'screen/display'))).text, AUTH_INVALID, 'a token first');
  });

  test('"An assistant\'s tool server (MCP) sends {"toggle":{"toggleState":"on"}} with no channel key to multi-channel switches": every channel', async (t) => {
    // A simulated two-channel Zigbee wall switch.
    const { g, token: simToken } = await simGateway();
    const wall = g.gateway.devices.registry
      .list()
      .find((d) => d.capabilities.filter((c) => c.capability === 'toggle').length === 2);
    assert.ok(wall, 'a two-channel switch among the simulated devices');
    const wallSerial = wall.serial_number;
    for (const toggleState of ['on', 'off']) {
      const r = await call(g.url, 'PUT', rest('v2', `devices/${wallSerial}`), {
        token: simToken,
        body: { state: { toggle: { toggleState } } },
      });
      assert.equal(r.json.error, 0, r.text);
      const listed = (await listDevices(g.url, simToken)).find((d) => d.serial_number === wallSerial);
      assert.deepEqual(listed.state.toggle, { '1': { toggleState }, '2': { toggleState } }, toggleState);
    }
    // A third-party switch receives the spec's shape: each channel named.
    const svc = await service();
    const [serial] = await discover(gw.url, token, [endpoint('two-gang', svc.url)]);
    t.after(() => call(gw.url, 'DELETE', rest('v2', `devices/${serial}`), { token }));
    const r = await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
      token,
      body: { state: { toggle: { toggleState: 'on' } } },
    });
    assert.equal(r.json.error, 0, r.text);
    assert.deepEqual(svc.received.at(-1)?.body.directive.payload.state, {
      toggle: { '1': { toggleState: 'on' }, '2': { toggleState: 'on' } },
    });
    // A channel that does not exist, or toggleState beside a channel, is still a 400 naming it.
    const mixed = await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
      token,
      body: { state: { toggle: { toggleState: 'on', '1': { toggleState: 'off' } } } },
    });
    assert.equal(mixed.json.error, 400);
    assert.match(mixed.json.message, /state\.toggle\.toggleState: the device has no channel toggleState of toggle/);
  });

  // Bonjour needs multicast, which loopback only gets in a private network namespace (as the e2e test does).

  test('"mDNS: clients browse _ewelink._tcp.local and accept a host name containing ihost, NSPanelPro or cube"', {
    skip: canUnshare ? false : 'unshare -n is not permitted here (needs root)',
  }, () => {
    const script = `
      const { startGateway } = await import(${JSON.stringify(new URL('../helpers/foundation.ts', import.meta.url).href)});
      const { Bonjour } = await import('bonjour-service');
      const gws = [];
      for (const name of ['opencube', 'Living Room']) gws.push(await startGateway({ overrides: { mdns: true, mdns_interface: '127.0.0.1', name } }));
      const ports = new Set(gws.map((g) => Number(new URL(g.url).port)));
      const bonjour = new Bonjour();
      const found = [];
      await new Promise((done) => {
        const browser = bonjour.find({ type: 'ewelink' }, (s) => {
          if (ports.has(s.port) && !found.some((f) => f.port === s.port)) found.push({ host: s.host, port: s.port, type: s.type, protocol: s.protocol });
          if (found.length === ports.size) { browser.stop(); done(); }
        });
        setTimeout(() => { browser.stop(); done(); }, 15000).unref();
      });
      bonjour.destroy();
      const bridges = [];
      for (const f of found) bridges.push(await (await fetch('http://127.0.0.1:' + f.port + '/open-api/v1/rest/bridge')).json());
      for (const g of gws) await g.stop();
      console.log(JSON.stringify({ found, bridges }));
    `;
    const r = runInLoopback(['--input-type=module', '-e', script], {
      timeout: 30_000,
      cwd: new URL('../..', import.meta.url).pathname,
    });
    const last = r.stdout.trim().split('\n').pop() ?? '';
    assert.ok(last.startsWith('{'), `scenario failed: ${r.stderr}`);
    const { found, bridges } = JSON.parse(last);
    assert.equal(found.length, 2, JSON.stringify(found));
    for (const f of found) {
      assert.equal(f.type, 'ewelink');
      assert.equal(f.protocol, 'tcp');
      assert.match(f.host, /ihost|NSPanelPro|cube/, `a host name clients accept: ${f.host}`);
    }
    assert.ok(
      bridges.every((b: any) => b.error === 0),
      'the advertised port serves the API',
    );
  });
});
