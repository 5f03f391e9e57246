/**
 * Reading D2 bodies, without a camera: every bad body is refused with a `path: rule` message
 * from the declared schema (or the rule no schema can say), never an exception; good bodies in
 * every spelling the spec and clients use are read the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { readAddRequest } from '../../src/drivers/camera/add-request.ts';
import { mutate } from '../helpers/fuzz.ts';
import { cameraBody, settingsBody, topLevelBody } from './bodies.ts';

const URL = 'rtsp://127.0.0.1:8554/live';
const good = cameraBody(URL);
const cap = (good.capabilities as Record<string, unknown>[])[0] as Record<string, unknown>;
const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key));

describe('reading a D2 body', () => {
  test('the stream URL in any of its three places, protocol in either spelling and any case', () => {
    const bodies = [
      cameraBody(URL),
      topLevelBody(URL),
      settingsBody(URL),
      { ...without('protocal'), protocol: 'rtsp' },
      { ...good, protocal: 'Rtsp', protocol: 'RTSP' },
      { ...good, display_category: 'Camera', manufacturer: null, model: null, firmware_version: null },
    ];
    for (const body of bodies) {
      const r = readAddRequest(body);
      assert.ok('cameras' in r, JSON.stringify(r));
      assert.equal(r.cameras[0]?.address.url, URL);
      assert.equal(r.cameras[0]?.protocol, 'rtsp');
    }
  });

  const cases: [string, unknown, string][] = [
    ['a number', 5, 'body: expected an object, got 5'],
    ['no name', without('name'), 'name: required'],
    ['a null name', { ...good, name: null }, 'name: required'],
    ['a name that is a number', { ...good, name: 3 }, 'name: expected a string, got 3'],
    ['a blank name', { ...good, name: '  ' }, 'name: "  " is not a non-empty name'],
    ['a name of 257 characters', { ...good, name: 'n'.repeat(257) }, 'name: longer than 256 characters'],
    [
      'a light',
      { ...good, display_category: 'light' },
      'display_category: "light" is not camera (only cameras are added by hand)',
    ],
    ['no protocol', without('protocal'), 'body: needs at least one of protocol, protocal'],
    ['an ONVIF camera', { ...good, protocal: 'ONVIF' }, 'protocal: "ONVIF" is not RTSP or ESP32-CAM'],
    ['a protocol that is a number', { ...good, protocol: 1 }, 'protocol: expected a string, got 1'],
    ['two protocols', { ...good, protocol: 'ESP32-CAM' }, 'protocal and protocol name different protocols'],
    [
      'a manufacturer that is an object',
      { ...good, manufacturer: {} },
      'manufacturer: expected a string, got an object',
    ],
    ['a model of 257 characters', { ...good, model: 'm'.repeat(257) }, 'model: longer than 256 characters'],
    ['no capabilities', without('capabilities'), 'capabilities: required'],
    ['capabilities as an object', { ...good, capabilities: {} }, 'capabilities: expected an array, got an object'],
    ['no capability', { ...good, capabilities: [] }, 'capabilities: needs at least 1 item'],
    [
      'an unknown field in the stream setting',
      {
        ...good,
        configuration: { streamSetting: { type: 'object', permission: '11', value: { stream_url: URL, fps: 5 } } },
      },
      'configuration.streamSetting.value.fps: unknown field',
    ],
    [
      'an unknown field named with a semicolon and a colon',
      {
        ...good,
        configuration: { streamSetting: { type: 'object', permission: '11', value: { stream_url: URL, 'a;b: c': 1 } } },
      },
      'configuration.streamSetting.value["a\\u003bb: c"]: unknown field',
    ],
    ['two capabilities', { ...good, capabilities: [cap, cap] }, 'capabilities: 2 items is above max 1'],
    [
      'a power capability',
      { ...good, capabilities: [{ ...cap, capability: 'power' }] },
      'capabilities.0.capability: must be camera-stream, got "power"',
    ],
    ['a capability that is a string', { ...good, capabilities: ['x'] }, 'capabilities.0: expected an object, got "x"'],
    ['a configuration that is a string', { ...good, configuration: 'x' }, 'configuration: expected an object, got "x"'],
    [
      'several problems',
      { name: 7, display_category: 'camera', protocal: 'RTSP', capabilities: 1 },
      'name: expected a string, got 7; capabilities: expected an array, got 1',
    ],
    ['an array with a number', [good, 5], '1: expected an object, got 5'],
    ['an array with a nameless camera', [good, without('name')], '1.name: required'],
    ['an empty array', [], 'body: an empty array adds no camera'],
  ];
  for (const [what, body, message] of cases) {
    test(`${what}: 400 "${message}"`, () => {
      assert.deepEqual(readAddRequest(body), { ok: false, code: 400, message });
    });
  }

  test('mutated bodies are read or refused with a known code and a message naming a path, never a throw', () => {
    const bases = [cameraBody(URL), topLevelBody(URL), settingsBody('http://127.0.0.1:81/capture'), [good, good]];
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.jsonValue({ maxDepth: 3 }),
        (base, path, value) => {
          const r = readAddRequest(mutate(base, path, value));
          if ('cameras' in r) return;
          assert.ok([400, 110011, 110015].includes(r.code), JSON.stringify(r));
          assert.match(
            r.message,
            // A path (a key a client chose is quoted, and may hold any character), a colon, the rule.
            /^((?:[^;"]|"(?:[^"\\]|\\.)*")*?: |(\d+\.)?protocal and protocol|the URL names|the password in the URL)/,
            r.message,
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
});
