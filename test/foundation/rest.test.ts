/**
 * Every REST endpoint of the foundation (G1-G9, S1-S5) on v1, v2 and V2, over real HTTP on
 * 127.0.0.1, with every error path: auth, field errors, bad JSON, empty bodies, unknown paths.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BusEvent } from '../../src/core/event-bus.ts';
import type { PlayRequest } from '../../src/core/speaker.ts';
import { call, FOUNDATION_ROUTES, rest, startGateway, type TestGateway, VERSIONS } from '../helpers/foundation.ts';

let gw: TestGateway;
let token: string;
let restarts = 0;

before(async () => {
  gw = await startGateway({ gatewayOptions: { onRestart: () => restarts++ } });
  token = gw.token('rest-tests');
});
after(() => gw.stop());

/** Asserts the envelope of spec 2.2 and returns it. */
function envelope(res: { status: number; json: unknown }, status = 200) {
  assert.equal(res.status, status, `HTTP status; body ${JSON.stringify(res.json)}`);
  const body = res.json as { error: number; data: object; message: string };
  assert.ok(body && typeof body === 'object', 'body is a JSON object');
  assert.deepEqual(Object.keys(body).sort(), ['data', 'error', 'message']);
  assert.equal(typeof body.error, 'number');
  assert.equal(typeof body.message, 'string');
  assert.ok(body.data !== null && typeof body.data === 'object' && !Array.isArray(body.data));
  if (body.error === 0) assert.equal(body.message, 'success');
  else {
    assert.deepEqual(body.data, {}, 'a failure carries data {}');
    assert.ok(body.message.length > 0);
  }
  return body;
}

function success(res: { status: number; json: unknown }) {
  const body = envelope(res);
  assert.equal(body.error, 0, `expected success, got ${JSON.stringify(body)}`);
  return body.data as Record<string, unknown>;
}

function failure(res: { status: number; json: unknown }, code: number, messagePart?: string | RegExp) {
  const body = envelope(res);
  assert.equal(body.error, code, `expected error ${code}, got ${JSON.stringify(body)}`);
  if (typeof messagePart === 'string') assert.ok(body.message.includes(messagePart), `message: ${body.message}`);
  else if (messagePart) assert.match(body.message, messagePart);
  return body;
}

/** Every route but the two open ones (G1 access_token and G4 bridge), with mode 1 for `{sid}`. */
const AUTH_ROUTES = FOUNDATION_ROUTES.filter(([, path]) => path !== 'bridge/access_token' && path !== 'bridge').map(
  ([method, path]) => [method, path.replace('{sid}', '1')] as const,
);

const BAD_AUTH: [string, Record<string, string>][] = [
  ['a missing header', {}],
  ['an empty header', { authorization: '' }],
  ['"Bearer " without a token', { authorization: 'Bearer ' }],
  ['an unknown token', { authorization: 'Bearer not-a-token' }],
  ['an unknown bare token', { authorization: 'nope' }],
];

describe('authentication (spec 5, COMPAT.md)', () => {
  for (const [method, path] of AUTH_ROUTES) {
    it(`${method} ${path} refuses a missing, empty or unknown token on every version`, async () => {
      const before = { speaker: gw.gateway.speaker.get(), modes: gw.gateway.security.list(), restarts };
      for (const v of VERSIONS) {
        for (const [, headers] of BAD_AUTH) {
          const res = await call(gw.url, method, rest(v, path), { headers, body: method === 'GET' ? undefined : '' });
          assert.equal(res.status, 200);
          assert.deepEqual(res.json, { error: 401, data: {}, message: 'headers.Authorization is invalid' });
        }
      }
      assert.deepEqual(
        { speaker: gw.gateway.speaker.get(), modes: gw.gateway.security.list(), restarts },
        before,
        'a refused request changes nothing',
      );
    });
  }

  it('accepts the token as "Bearer <token>" in any case of the scheme, and as a bare token', async () => {
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `BEARER  ${token} `, token]) {
      success(await call(gw.url, 'GET', rest('v2', 'security'), { headers: { authorization: header } }));
    }
  });
});

describe('G4 GET bridge (no token)', () => {
  for (const v of VERSIONS) {
    it(`serves ip, mac, name, domain and a three-part fw_version on ${v}`, async () => {
      const data = success(await call(gw.url, 'GET', rest(v, 'bridge')));
      assert.deepEqual(Object.keys(data).sort(), ['domain', 'fw_version', 'ip', 'mac', 'name']);
      assert.match(data.ip as string, /^\d{1,3}(\.\d{1,3}){3}$/);
      assert.match(data.mac as string, /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i);
      assert.equal(data.name, 'opencube');
      assert.equal(data.domain, 'cube.local');
      assert.match(data.fw_version as string, /^\d+\.\d+\.\d+$/);
    });
  }

  it('does not need a token but accepts one', async () => {
    success(await call(gw.url, 'GET', rest('v2', 'bridge'), { token }));
    success(await call(gw.url, 'GET', rest('v2', 'bridge'), { token: 'junk' }));
  });

  it('answers with a trailing slash and with no Content-Type too', async () => {
    success(await call(gw.url, 'GET', '/open-api/v1/rest/bridge/'));
    const res = await fetch(`${gw.url}/open-api/v2/rest/bridge`);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(((await res.json()) as { error: number }).error, 0);
  });
});

describe('G1 GET bridge/access_token', () => {
  for (const v of VERSIONS) {
    it(`refuses with 401 "link button not pressed" and HTTP 200 before a press on ${v}`, async () => {
      const res = await call(gw.url, 'GET', `${rest(v, 'bridge/access_token')}?app_name=rest`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { error: 401, data: {}, message: 'link button not pressed' });
    });
  }
});

describe('G2 GET bridge/runtime', () => {
  for (const v of VERSIONS) {
    it(`reports integer percents, an ISO power-up time with Z, and no SD card on ${v}`, async () => {
      const data = success(await call(gw.url, 'GET', rest(v, 'bridge/runtime'), { token }));
      for (const k of ['ram_used', 'cpu_used'] as const) {
        assert.ok(Number.isInteger(data[k]), `${k} is an integer: ${data[k]}`);
        assert.ok((data[k] as number) >= 0 && (data[k] as number) <= 100, `${k} within 0-100`);
      }
      assert.match(data.power_up_time as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(Date.parse(data.power_up_time as string) <= Date.now());
      assert.equal(data.sd_card_used, '');
      // Always both, with the spec's types: a dashboard calls cpu_temp_unit.toUpperCase() unguarded.
      assert.ok(Number.isInteger(data.cpu_temp));
      assert.equal(data.cpu_temp_unit, 'c');
    });
  }
});

describe('G3 PUT bridge/config', () => {
  for (const v of VERSIONS) {
    it(`sets the volume within 0-100 on ${v}`, async () => {
      for (const volume of [0, 100, 37]) {
        assert.deepEqual(success(await call(gw.url, 'PUT', rest(v, 'bridge/config'), { token, body: { volume } })), {});
        assert.equal(gw.gateway.speaker.get().volume, volume);
      }
    });
  }

  it('treats an empty body, {} and null as "no change"', async () => {
    success(await call(gw.url, 'PUT', rest('v2', 'bridge/config'), { token, body: { volume: 42 } }));
    for (const body of ['', '   ', '{}', 'null']) {
      success(await call(gw.url, 'PUT', rest('v2', 'bridge/config'), { token, body }));
    }
    assert.equal(gw.gateway.speaker.get().volume, 42);
  });

  const bad: [string, unknown, RegExp][] = [
    ['above 100', { volume: 101 }, /^volume: 101 is above max 100$/],
    ['below 0', { volume: -1 }, /^volume: -1 is below min 0$/],
    ['a fraction', { volume: 1.5 }, /^volume: 1\.5 is not an integer$/],
    ['a string', { volume: '50' }, /^volume: expected a number, got "50"$/],
    ['null', { volume: null }, /^volume: expected a number, got null$/],
    ['a boolean', { volume: true }, /^volume: expected a number, got true$/],
    ['an array body', [1, 2], /^body: expected an object, got an array$/],
    ['a string body', '"loud"', /^body: expected an object, got "loud"$/],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses a volume that is ${what} with 400 naming the field`, async () => {
      const before = gw.gateway.speaker.get().volume;
      for (const v of VERSIONS)
        failure(await call(gw.url, 'PUT', rest(v, 'bridge/config'), { token, body }), 400, message);
      assert.equal(gw.gateway.speaker.get().volume, before);
    });
  }
});

describe('G5-G7 mute, unmute, cancel_alarm', () => {
  for (const v of VERSIONS) {
    it(`mute and unmute change the speaker state, with an empty JSON body, on ${v}`, async () => {
      assert.deepEqual(success(await call(gw.url, 'PUT', rest(v, 'bridge/mute'), { token, body: '' })), {});
      assert.equal(gw.gateway.speaker.get().muted, true);
      assert.deepEqual(success(await call(gw.url, 'PUT', rest(v, 'bridge/unmute'), { token })), {});
      assert.equal(gw.gateway.speaker.get().muted, false);
    });
  }

  it('cancel_alarm with no alarm sounding succeeds, leaves the alarm state normal and tells stream clients nothing', async () => {
    const seen: BusEvent[] = [];
    const off = gw.gateway.bus.subscribe((e) => seen.push(e));
    try {
      for (const v of VERSIONS) success(await call(gw.url, 'PUT', rest(v, 'bridge/cancel_alarm'), { token, body: '' }));
    } finally {
      off();
    }
    assert.equal(gw.gateway.alarm.status().alarm_state, 'normal');
    assert.deepEqual(
      seen.filter((e) => e.name === 'bridge#updateAlarmState').map((e) => e.data),
      [],
    );
  });

  it('mute silences what plays but keeps it, a sound asked for while muted is kept too, and unmute lets it be heard', async () => {
    const play = (name: string) => ({ type: 'play_sound', sound: { name, volume: 50, countdown: -1 } });
    success(await call(gw.url, 'POST', rest('v2', 'hardware/speaker'), { token, body: play('alarm1') }));
    assert.equal(gw.gateway.speaker.nowPlaying()?.audible, true);
    success(await call(gw.url, 'PUT', rest('v2', 'bridge/mute'), { token }));
    assert.deepEqual(
      [gw.gateway.speaker.nowPlaying()?.name, gw.gateway.speaker.nowPlaying()?.audible],
      ['alarm1', false],
    );
    success(await call(gw.url, 'POST', rest('v2', 'hardware/speaker'), { token, body: play('alarm2') }));
    assert.deepEqual(
      [gw.gateway.speaker.nowPlaying()?.name, gw.gateway.speaker.nowPlaying()?.audible],
      ['alarm2', false],
    );
    success(await call(gw.url, 'PUT', rest('v2', 'bridge/unmute'), { token }));
    assert.deepEqual(
      [gw.gateway.speaker.nowPlaying()?.name, gw.gateway.speaker.nowPlaying()?.audible],
      ['alarm2', true],
    );
    gw.gateway.speaker.stopPlayback();
  });
});

describe('G8 POST hardware/reboot', () => {
  for (const v of VERSIONS) {
    it(`answers success first, then asks for a restart, on ${v}`, async () => {
      const before = restarts;
      assert.deepEqual(success(await call(gw.url, 'POST', rest(v, 'hardware/reboot'), { token, body: '' })), {});
      const until = Date.now() + 5000;
      while (restarts === before && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
      assert.equal(restarts, before + 1);
    });
  }
});

describe('G9 POST hardware/speaker', () => {
  const good: [string, unknown, string][] = [
    ['a sound', { type: 'play_sound', sound: { name: 'alert3', volume: 20, countdown: 5 } }, 'alert3'],
    ['a sound for 0 s', { type: 'play_sound', sound: { name: 'doorbell1', volume: 0, countdown: 0 } }, 'doorbell1'],
    [
      'a sound until cancelled',
      { type: 'play_sound', sound: { name: 'alarm5', volume: 100, countdown: -1 } },
      'alarm5',
    ],
    ['the longest sound', { type: 'play_sound', sound: { name: 'alarm2', volume: 1, countdown: 1799 } }, 'alarm2'],
    ['a beep', { type: 'play_beep', beep: { name: 'bootComplete', volume: 30 } }, 'bootComplete'],
    ['a spec-spelled beep', { type: 'play_beep', beep: { name: 'system Armed', volume: 30 } }, 'system Armed'],
    ['a client-spelled beep', { type: 'play_beep', beep: { name: 'systemDisarmed', volume: 30 } }, 'system Disarmed'],
  ];
  for (const [what, body, name] of good) {
    it(`plays ${what} on every version`, async (t) => {
      // Short sounds and beeps end by themselves: record what the speaker was asked to play.
      const played: PlayRequest[] = [];
      const speaker = gw.gateway.speaker;
      const play = speaker.play;
      speaker.play = (req) => {
        played.push(req);
        play.call(speaker, req);
      };
      t.after(() => {
        speaker.play = play;
        speaker.stopPlayback();
      });
      for (const v of VERSIONS) {
        assert.deepEqual(success(await call(gw.url, 'POST', rest(v, 'hardware/speaker'), { token, body })), {});
      }
      const b = body as { type: string; sound?: { volume: number; countdown: number }; beep?: { volume: number } };
      const expected: PlayRequest =
        b.type === 'play_sound'
          ? { kind: 'sound', name, volume: b.sound?.volume as number, countdown: b.sound?.countdown as number }
          : { kind: 'beep', name, volume: b.beep?.volume as number, countdown: 0 };
      assert.deepEqual(played, [expected, expected, expected]);
    });
  }

  it('a long sound keeps playing until its countdown ends', async () => {
    const body = { type: 'play_sound', sound: { name: 'alert3', volume: 20, countdown: 600 } };
    success(await call(gw.url, 'POST', rest('v1', 'hardware/speaker'), { token, body }));
    const now = gw.gateway.speaker.nowPlaying();
    assert.equal(now?.name, 'alert3');
    assert.equal(Date.parse(now?.until as string) - Date.parse(now?.started_at as string), 600_000);
    gw.gateway.speaker.stopPlayback();
  });

  const bad: [string, unknown, RegExp][] = [
    ['an empty body', '', /^type: required$/],
    ['an unknown type', { type: 'play_song' }, /^type: "play_song" is not one of play_sound, play_beep$/],
    ['a numeric type', { type: 1 }, /^type: 1 is not one of play_sound, play_beep$/],
    ['play_sound without sound', { type: 'play_sound' }, /^sound: required$/],
    ['a sound that is an array', { type: 'play_sound', sound: [] }, /^sound: expected an object, got an array$/],
    [
      'an unknown sound name',
      { type: 'play_sound', sound: { name: 'alarm6', volume: 1, countdown: 1 } },
      /^sound\.name: "alarm6" is not one of/,
    ],
    ['a sound without name', { type: 'play_sound', sound: { volume: 1, countdown: 1 } }, /^sound\.name: required$/],
    [
      'a sound without volume',
      { type: 'play_sound', sound: { name: 'alarm1', countdown: 1 } },
      /^sound\.volume: required$/,
    ],
    [
      'a sound volume of 101',
      { type: 'play_sound', sound: { name: 'alarm1', volume: 101, countdown: 1 } },
      /^sound\.volume: 101 is above max 100$/,
    ],
    [
      'a sound without countdown',
      { type: 'play_sound', sound: { name: 'alarm1', volume: 1 } },
      /^sound\.countdown: required$/,
    ],
    [
      'a countdown of 1800',
      { type: 'play_sound', sound: { name: 'alarm1', volume: 1, countdown: 1800 } },
      /^sound\.countdown: 1800 is above max 1799$/,
    ],
    [
      'a countdown of -2',
      { type: 'play_sound', sound: { name: 'alarm1', volume: 1, countdown: -2 } },
      /^sound\.countdown: -2 is below min -1$/,
    ],
    ['play_beep without beep', { type: 'play_beep' }, /^beep: required$/],
    [
      'an unknown beep',
      { type: 'play_beep', beep: { name: 'moo', volume: 1 } },
      /^beep\.name: "moo" is not one of bootComplete, .*systemDisarmed$/,
    ],
    ['a beep without volume', { type: 'play_beep', beep: { name: 'factoryReset' } }, /^beep\.volume: required$/],
    ['a beep volume of 1.5', { type: 'play_beep', beep: { name: 'factoryReset', volume: 1.5 } }, /^beep\.volume: 1\.5/],
  ];
  for (const [what, body, message] of bad) {
    it(`refuses ${what} with 400 naming the field`, async () => {
      gw.gateway.speaker.stopPlayback();
      for (const v of VERSIONS)
        failure(await call(gw.url, 'POST', rest(v, 'hardware/speaker'), { token, body }), 400, message);
      assert.equal(gw.gateway.speaker.nowPlaying(), null);
    });
  }
});

describe('S1-S5 security', () => {
  for (const v of VERSIONS) {
    it(`lists, arms and disarms modes on ${v}`, async () => {
      success(await call(gw.url, 'PUT', rest(v, 'security/disable'), { token, body: '' }));
      const list = success(await call(gw.url, 'GET', rest(v, 'security'), { token })).security_list as {
        sid: number;
        name: string;
        enable: boolean;
      }[];
      assert.deepEqual(
        list.map((m) => m.name),
        ['home_mode', 'away_mode', 'sleep_mode'],
      );
      for (const m of list) {
        assert.ok(Number.isInteger(m.sid));
        assert.equal(m.enable, false);
      }
      const armed = () => gw.gateway.security.list().filter((m) => m.enable);
      success(await call(gw.url, 'PUT', rest(v, `security/${list[0]?.sid}/enable`), { token, body: '' }));
      assert.deepEqual(
        armed().map((m) => m.name),
        ['home_mode'],
      );
      success(await call(gw.url, 'PUT', rest(v, `security/${list[2]?.sid}/enable`), { token }));
      assert.deepEqual(
        armed().map((m) => m.name),
        ['sleep_mode'],
        'at most one mode is armed',
      );
      success(await call(gw.url, 'PUT', rest(v, `security/${list[2]?.sid}/disable`), { token }));
      assert.deepEqual(armed(), []);
      success(await call(gw.url, 'PUT', rest(v, 'security/enable'), { token, body: '' }));
      assert.deepEqual(
        armed().map((m) => m.name),
        ['away_mode'],
        'S4 arms the default mode',
      );
      success(await call(gw.url, 'PUT', rest(v, 'security/disable'), { token }));
      assert.deepEqual(armed(), []);
    });
  }

  const badSids = ['99', '0', 'abc', '-1', '1.5', '1e3', '9999999999'];
  for (const sid of badSids) {
    it(`refuses the unknown sid ${JSON.stringify(sid)} with 400 naming security_id`, async () => {
      for (const v of VERSIONS) {
        for (const op of ['enable', 'disable']) {
          failure(await call(gw.url, 'PUT', rest(v, `security/${sid}/${op}`), { token }), 400, /^security_id: /);
        }
      }
      assert.equal(
        gw.gateway.security.list().some((m) => m.enable),
        false,
      );
    });
  }
});

describe('bodies (COMPAT.md: empty is {}, not JSON is 400)', () => {
  const emptyBodyRoutes: [string, string][] = [
    ['PUT', 'bridge/config'],
    ['PUT', 'bridge/mute'],
    ['PUT', 'bridge/unmute'],
    ['PUT', 'bridge/cancel_alarm'],
    ['PUT', 'security/enable'],
    ['PUT', 'security/disable'],
    ['PUT', 'security/2/enable'],
    ['PUT', 'security/2/disable'],
  ];
  const contentTypes = ['application/json', 'application/json; charset=utf-8', 'text/plain', '', 'json', ';', 'x/y'];
  for (const [method, path] of emptyBodyRoutes) {
    it(`${method} ${path} with an empty body is {} whatever the Content-Type`, async () => {
      for (const type of contentTypes) {
        const res = await call(gw.url, method, rest('v2', path), {
          token,
          headers: { 'content-type': type },
          body: '',
        });
        success(res);
      }
      // and with no Content-Type header at all
      const res = await fetch(`${gw.url}${rest('v1', path)}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(((await res.json()) as { error: number }).error, 0);
    });
  }

  it('reads JSON sent as text/plain, with no type, or with a malformed type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'json', '']) {
      success(
        await call(gw.url, 'PUT', rest('v2', 'bridge/config'), {
          token,
          headers: { 'content-type': type },
          body: { volume: 11 },
        }),
      );
      assert.equal(gw.gateway.speaker.get().volume, 11);
      gw.gateway.speaker.setVolume(50);
    }
  });

  for (const text of ['{', '{"volume":', 'not json', '{"a":1}}', "{'volume':1}", '\u0000']) {
    it(`refuses the invalid JSON ${JSON.stringify(text)} with 400`, async () => {
      for (const [method, path] of [
        ['PUT', 'bridge/config'],
        ['PUT', 'bridge/mute'],
        ['POST', 'hardware/speaker'],
        ['PUT', 'security/enable'],
      ] as const) {
        failure(await call(gw.url, method, rest('v2', path), { token, body: text }), 400, /^body is not valid JSON/);
      }
    });
  }

  it('refuses a body nested too deep and a body over 1 MiB with 400', async () => {
    const deep = `${'['.repeat(100)}${']'.repeat(100)}`;
    failure(await call(gw.url, 'PUT', rest('v2', 'bridge/config'), { token, body: deep }), 400, /nested deeper/);
    const big = JSON.stringify({ volume: 1, pad: 'x'.repeat(1024 * 1024) });
    failure(await call(gw.url, 'PUT', rest('v2', 'bridge/config'), { token, body: big }), 400, /larger than 1 MiB/);
  });
});

describe('unknown paths', () => {
  const paths: [string, string][] = [
    ['GET', '/open-api/v2/rest/nothing'],
    ['GET', '/open-api/V2/rest/bridge/nothing'],
    ['GET', '/open-api/v3/rest/bridge'],
    // The version segment is one parameter for every tree: only a whole served version matches it.
    ['GET', '/open-api/v12/rest/bridge'],
    ['GET', '/open-api/v1x/rest/bridge'],
    ['GET', '/open-api/xv2/rest/bridge'],
    ['GET', '/open-api/:version/rest/bridge'],
    ['GET', '/open-api/v2/bridge'],
    ['GET', '/favicon.ico'],
    ['GET', '/open-api/v2/rest/bridge/mute'],
    ['DELETE', '/open-api/v1/rest/security'],
    ['POST', '/open-api/v2/rest/bridge'],
  ];
  for (const [method, path] of paths) {
    it(`${method} ${path} is HTTP 404 with the envelope`, async () => {
      const res = await call(gw.url, method, path, { token, body: method === 'GET' ? undefined : '{bad json' });
      const body = envelope(res, 404);
      assert.equal(body.error, 404);
      assert.match(body.message, /^not found: /);
    });
  }
});
