/**
 * The speaker through the API of a running gateway, heard through a recording sink on a manual
 * clock: G9 sounds and beeps, G3 volume, G5/G6 mute, G7 cancel_alarm, and the beeps on gateway events.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SoundLibrary } from '../../src/core/audio/library.ts';
import { rmsOf } from '../../src/core/audio/measure.ts';
import { durationMs } from '../../src/core/audio/pcm.ts';
import { type AudioGateway, startAudioGateway } from '../helpers/audio.ts';
import { call, rest } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

const library = new SoundLibrary();

describe('G9 through a running gateway', () => {
  let g: AudioGateway;
  let token: string;
  before(async () => {
    g = await startAudioGateway({ overrides: { audio: { beeps: { boot_complete: false } } } });
    token = g.token();
  });
  after(() => g.stop());

  const speaker = (body: unknown, v = 'v2') => call(g.url, 'POST', rest(v, 'hardware/speaker'), { token, body });
  const put = (path: string, body?: unknown) => call(g.url, 'PUT', rest('v2', path), { token, body });
  const fresh = () => {
    g.gateway.speaker.stopPlayback();
    g.sink.plays.length = 0;
  };

  test('play_sound plays for its countdown, repeating the sound, and stops by itself', async () => {
    fresh();
    const r = await speaker({ type: 'play_sound', sound: { name: 'doorbell3', volume: 100, countdown: 12 } });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(g.sink.playing()?.name, 'doorbell3');
    assert.equal(g.sink.playing()?.loop, true);
    g.clock.advance(11_999);
    assert.equal(g.gateway.speaker.nowPlaying()?.name, 'doorbell3');
    g.clock.advance(1);
    assert.equal(g.gateway.speaker.nowPlaying(), null);
    assert.equal(g.sink.playing(), undefined);
    assert.equal(g.sink.heardMs(g.sink.plays[0]!), 12_000);
  });

  test('countdown -1 rings until cancel_alarm; countdown 0 plays the sound once through', async () => {
    fresh();
    await speaker({ type: 'play_sound', sound: { name: 'alarm2', volume: 100, countdown: -1 } }, 'v1');
    g.clock.advance(24 * 3600_000);
    assert.equal(g.sink.playing()?.name, 'alarm2');
    assert.equal((await put('bridge/cancel_alarm')).json.error, 0);
    assert.equal(g.sink.playing(), undefined);
    assert.equal(g.sink.heardMs(g.sink.plays[0]!), 24 * 3600_000);

    fresh();
    await speaker({ type: 'play_sound', sound: { name: 'doorbell1', volume: 100, countdown: 0 } });
    assert.equal(g.sink.plays.at(-1)?.loop, false);
    g.clock.advance(Math.ceil(durationMs(library.get('sound', 'doorbell1')!)));
    assert.equal(g.gateway.speaker.nowPlaying(), null);
  });

  test('play_beep plays once, in both spellings of the armed beep', async () => {
    for (const name of ['systemArmed', 'system Armed']) {
      fresh();
      const r = await speaker({ type: 'play_beep', beep: { name, volume: 100 } });
      assert.equal(r.json.error, 0, r.text);
      const rec = g.sink.plays.at(-1)!;
      assert.deepEqual([rec.name, rec.layer, rec.loop], ['system Armed', 'beep', false]);
      assert.deepEqual(rec.pcm.samples.length, library.get('beep', 'system Armed')!.samples.length);
      g.clock.advance(1000);
      assert.equal(g.gateway.speaker.nowPlaying(), null);
    }
  });

  test('a new sound replaces the playing one', async () => {
    fresh();
    await speaker({ type: 'play_sound', sound: { name: 'alert1', volume: 100, countdown: 60 } });
    g.clock.advance(5000);
    await speaker({ type: 'play_sound', sound: { name: 'alert4', volume: 100, countdown: 60 } });
    assert.deepEqual(
      g.sink.plays.map((p) => [p.name, p.stoppedAt === null ? null : p.stoppedAt - p.startedAt]),
      [
        ['alert1', 5000],
        ['alert4', null],
      ],
    );
  });

  test('the G3 volume and the sound volume scale the samples: 50 gives half the RMS of 100', async () => {
    const rmsAt = async (gateway: number, own: number) => {
      fresh();
      await put('bridge/config', { volume: gateway });
      await speaker({ type: 'play_sound', sound: { name: 'alarm1', volume: own, countdown: 10 } });
      return rmsOf(g.sink.plays.at(-1)!.pcm.samples);
    };
    const full = await rmsAt(100, 100);
    assert.ok(Math.abs((await rmsAt(50, 100)) / full - 0.5) < 0.001);
    assert.ok(Math.abs((await rmsAt(100, 50)) / full - 0.5) < 0.001);
    assert.ok(Math.abs((await rmsAt(50, 50)) / full - 0.25) < 0.001);
    assert.equal(await rmsAt(0, 100), 0);
    await put('bridge/config', { volume: 100 });
  });

  test('a volume change while a sound plays is heard at once', async () => {
    fresh();
    await speaker({ type: 'play_sound', sound: { name: 'alert5', volume: 100, countdown: 30 } });
    await put('bridge/config', { volume: 20 });
    assert.deepEqual(
      g.sink.plays.map((p) => p.gain),
      [1, 0.2],
    );
    await put('bridge/config', { volume: 100 });
  });

  test('mute silences, unmute restores what still plays; both persist their state', async () => {
    fresh();
    await speaker({ type: 'play_sound', sound: { name: 'alarm3', volume: 100, countdown: 60 } });
    g.clock.advance(10_000);
    await put('bridge/mute');
    assert.equal(g.sink.playing(), undefined);
    assert.equal(g.gateway.speaker.nowPlaying()?.audible, false);
    g.clock.advance(10_000);
    await put('bridge/unmute');
    assert.equal(g.sink.playing()?.name, 'alarm3');
    g.clock.advance(40_000);
    assert.equal(g.sink.playing(), undefined);
    assert.deepEqual(
      g.sink.plays.map((p) => g.sink.heardMs(p)),
      [10_000, 40_000],
    );
  });
});

describe('beeps on gateway events', () => {
  test('boot complete, device discovered, armed, disarmed and factory reset each beep', async (t) => {
    const g = await startAudioGateway();
    t.after(() => g.stop());
    const token = g.token();
    const beeps = () => g.sink.plays.filter((p) => p.layer === 'beep').map((p) => p.name);
    assert.deepEqual(beeps(), ['bootComplete']);
    g.clock.advance(1000);
    const sync = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('b-1', 'http://127.0.0.1:9/x')],
    });
    assert.equal(sync.json.header.name, 'Response', sync.text);
    g.clock.advance(1000);
    await call(g.url, 'PUT', rest('v2', 'security/2/enable'), { token });
    g.clock.advance(1000);
    await call(g.url, 'PUT', rest('v2', 'security/2/disable'), { token });
    g.clock.advance(1000);
    await g.gateway.reset();
    assert.deepEqual(beeps(), ['bootComplete', 'deviceDiscovered', 'system Armed', 'system Disarmed', 'factoryReset']);
  });

  test('each of them can be switched off', async (t) => {
    const g = await startAudioGateway({
      overrides: {
        audio: {
          beeps: {
            boot_complete: false,
            device_discovered: false,
            armed: false,
            disarmed: false,
            factory_reset: false,
          },
        },
      },
    });
    t.after(() => g.stop());
    const token = g.token();
    await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('b-2', 'http://127.0.0.1:9/x')] });
    await call(g.url, 'PUT', rest('v2', 'security/2/enable'), { token });
    await call(g.url, 'PUT', rest('v2', 'security/2/disable'), { token });
    await g.gateway.reset();
    assert.deepEqual(g.sink.plays, []);
  });

  test('their volume is a setting, under the gateway volume', async (t) => {
    const g = await startAudioGateway({ overrides: { audio: { beep_volume: 40 } } });
    t.after(() => g.stop());
    assert.equal(g.sink.plays[0]?.name, 'bootComplete');
    assert.equal(g.sink.plays[0]?.gain, 0.5 * 0.4, 'gateway volume 50 (the default) times 40');
  });
});
