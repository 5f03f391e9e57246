/**
 * One token holder cannot exhaust the gateway's memory (issue 16, point 3): what one device may
 * carry is bounded (tags, state, capabilities), the replay ring is bounded in bytes as well as in
 * events, and a slow stream client is cut off by the bytes queued for it as well as by the events.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { deviceLimits } from '../../src/catalog/index.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { call, eventually, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

const MB = 1024 * 1024;

describe('the replay ring', () => {
  it('keeps at most its bytes: the oldest events go first, and a client that missed them gets the gap', () => {
    const bus = new EventBus(10_000, 0, () => {}, MB);
    const big = 'x'.repeat(100 * 1024);
    const ids = Array.from(
      { length: 50 },
      (_, i) => bus.publish('device#updateDeviceState', { endpoint: { serial_number: `d${i}` }, payload: { big } }).id,
    );
    assert.ok(bus.keptBytes <= MB, `${bus.keptBytes} bytes kept`);
    assert.ok(bus.kept >= 9 && bus.kept < 11, `${bus.kept} events kept`);
    assert.equal(bus.oldest, ids[ids.length - bus.kept]);
    const replay = bus.since(ids[ids.length - 3] as number);
    assert.ok(replay.ok);
    assert.deepEqual(
      replay.events.map((e) => [e.id, (e.data as { endpoint: { serial_number: string } }).endpoint.serial_number]),
      [
        [ids[48], 'd48'],
        [ids[49], 'd49'],
      ],
    );
    assert.deepEqual(bus.since(ids[0] as number), { ok: false, oldest: bus.oldest, last: ids[49] });
  });

  it('always keeps the newest event, even one larger than its bytes', () => {
    const bus = new EventBus(10, 0, () => {}, 1000);
    const e = bus.publish('device#updateDeviceState', {
      endpoint: { serial_number: 'd' },
      payload: { big: 'y'.repeat(5000) },
    });
    assert.equal(bus.kept, 1);
    assert.equal(bus.oldest, e.id);
  });
});

describe('what one device may carry', () => {
  let gw: TestGateway;
  let token: string;
  let serial: string;
  before(async () => {
    gw = await startGateway();
    token = gw.token('big');
    const r = await sendEvent(gw, token, 'DiscoveryRequest', {
      endpoints: [endpoint('lamp', 'http://127.0.0.1:9/x', { tags: { room: 'hall' } })],
    });
    serial = r.json.payload.endpoints[0].serial_number;
  });
  after(() => gw.stop());

  const over = (chars: number) => 'a'.repeat(chars);

  it('DeviceInformationUpdatedReports with 4 MB of tags are refused, naming the limit; nothing is kept', async () => {
    const before = gw.gateway.bus.keptBytes;
    const tags = { blob: over(4 * MB) };
    for (let i = 0; i < 10; i++) {
      const r = await sendEvent(
        gw,
        token,
        'DeviceInformationUpdatedReport',
        { capabilities: [], tags },
        { endpoint: { serial_number: serial } },
      );
      assert.equal(r.json.header.name, 'ErrorResponse', r.text.slice(0, 300));
      assert.match(
        r.json.payload.description,
        new RegExp(`^payload\\.tags: \\d+ characters of JSON, more than the ${deviceLimits.tagsChars} allowed$`),
      );
    }
    assert.deepEqual(gw.gateway.devices.registry.get(serial)?.tags, { room: 'hall' });
    assert.ok(gw.gateway.bus.keptBytes - before < 64 * 1024, 'no event carried them');
  });

  const refused: [string, () => Promise<{ text: string; json: any }>, RegExp][] = [
    [
      'D4 tags',
      () => call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { tags: { b: over(70_000) } } }),
      /^tags: \d+ characters of JSON, more than the 65536 allowed$/,
    ],
    [
      'a D4 command',
      () =>
        call(gw.url, 'PUT', rest('v2', `devices/${serial}`), {
          token,
          body: { state: { power: { powerState: 'on', pad: over(70_000) } } },
        }),
      /^state: \d+ characters of JSON, more than the 65536 allowed$/,
    ],
    [
      'a state report',
      () =>
        sendEvent(
          gw,
          token,
          'DeviceStatesChangeReport',
          { state: { power: { powerState: 'on', pad: over(70_000) } } },
          { endpoint: { serial_number: serial } },
        ),
      /^payload\.state: \d+ characters of JSON, more than the 65536 allowed$/,
    ],
    [
      'a DiscoveryRequest with 300 capabilities',
      () =>
        sendEvent(gw, token, 'DiscoveryRequest', {
          endpoints: [
            endpoint('many', 'http://127.0.0.1:9/x', {
              capabilities: Array.from({ length: 300 }, (_, i) => ({
                capability: 'toggle',
                permission: '1100',
                name: String(i),
              })),
            }),
          ],
        }),
      /^payload\.endpoints\.0\.capabilities: 300 capabilities, more than the 256 allowed$/,
    ],
    [
      'a DiscoveryRequest with 1 MB of tags',
      () =>
        sendEvent(gw, token, 'DiscoveryRequest', {
          endpoints: [endpoint('tagged', 'http://127.0.0.1:9/x', { tags: { b: over(MB) } })],
        }),
      /^payload\.endpoints\.0\.tags: \d+ characters of JSON, more than the 65536 allowed$/,
    ],
  ];
  for (const [what, send, message] of refused) {
    it(`${what} over its bound is refused with a message naming the bound`, async () => {
      const r = await send();
      const text = r.json.message ?? r.json.payload?.description;
      assert.match(text, message, r.text.slice(0, 300));
    });
  }

  it('tags at the bound are kept verbatim', async () => {
    const tags = { b: over(deviceLimits.tagsChars - 20) };
    const r = await call(gw.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { tags } });
    assert.equal(r.json.error, 0, r.text.slice(0, 300));
    assert.deepEqual(gw.gateway.devices.registry.get(serial)?.tags, tags);
  });
});

describe('a stream client that does not read', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startGateway({ overrides: { sse: { client_queue_bytes: 256 * 1024 } } });
  });
  after(() => gw.stop());

  it('is cut off once the bytes queued for it pass its bound, long before its event count', async () => {
    const token = gw.token('slow');
    const { port } = new URL(gw.url);
    const socket = connect(Number(port), '127.0.0.1');
    let closed = false;
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    await new Promise<void>((done) => socket.once('connect', () => done()));
    socket.write(`GET /open-api/v2/sse/bridge?access_token=${token} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await eventually(() => gw.gateway.sse.size === 1, 10_000, 'the stream is open');
    socket.pause();
    // 400 events of 60 KB: 24 MB, well past what the socket buffers take; 400 is far below the
    // 2000 events a client may have queued.
    const pad = 'p'.repeat(60 * 1024);
    for (let i = 0; i < 400 && gw.gateway.sse.size > 0; i++) {
      gw.gateway.bus.publish('device#updateDeviceState', { endpoint: { serial_number: 'd' }, payload: { pad, i } });
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(gw.gateway.sse.size, 0, 'the slow client was cut off');
    socket.resume();
    await eventually(() => closed, 10_000, 'its connection closed');
  });
});
