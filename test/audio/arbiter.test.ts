/**
 * The arbiter with a recording sink and a manual clock: what played, at which volume, for how
 * long, what replaced what, mute and unmute, countdowns and the alarm's one-call API.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AudioArbiter, type PlayRequest } from '../../src/core/audio/arbiter.ts';
import { SoundLibrary } from '../../src/core/audio/library.ts';
import { rmsOf } from '../../src/core/audio/measure.ts';
import { durationMs } from '../../src/core/audio/pcm.ts';
import { RecordingSink } from '../../src/drivers/audio/recording-sink.ts';
import { ManualClock, sine } from '../helpers/audio.ts';

const library = new SoundLibrary();

function setup(volume = 100) {
  const clock = new ManualClock();
  const sink = new RecordingSink(clock);
  const arbiter = new AudioArbiter({ sink, clock, library, volume });
  const played = () => sink.plays.map((p) => `${p.layer}:${p.name}`);
  return { clock, sink, arbiter, played };
}

function mustPlay(arbiter: AudioArbiter, req: PlayRequest) {
  const r = arbiter.play(req);
  assert.ok(r.ok, r.ok ? '' : r.reason);
  return r.playing;
}

describe('countdowns run on the clock', () => {
  test('a beep plays once, for its own length, and then nothing plays', () => {
    const { clock, sink, arbiter } = setup();
    const beep = library.get('beep', 'bootComplete');
    mustPlay(arbiter, { layer: 'beep', name: 'bootComplete' });
    assert.equal(sink.plays.length, 1);
    assert.equal(sink.plays[0]?.loop, false);
    assert.equal(sink.plays[0]?.pcm.samples.length, beep?.samples.length);
    const length = Math.ceil(durationMs(beep!));
    clock.advance(length - 1);
    assert.ok(arbiter.current(), 'still playing a millisecond before its end');
    clock.advance(1);
    assert.equal(arbiter.current(), null);
    assert.ok(Math.abs(sink.heardMs(sink.plays[0]!) - durationMs(beep!)) < 0.01);
    assert.equal(sink.plays[0]?.stoppedAt, null, 'played through, not cut');
  });

  test('a sound with a countdown repeats for exactly that long and stops by itself', () => {
    const { clock, sink, arbiter } = setup();
    const p = mustPlay(arbiter, { layer: 'sound', name: 'doorbell1', repeat: { forMs: 30_000 } });
    assert.equal(p.endsAt, p.startedAt + 30_000);
    assert.equal(sink.plays[0]?.loop, true, 'the sink repeats the clip');
    clock.advance(29_999);
    assert.equal(arbiter.current()?.name, 'doorbell1');
    clock.advance(1);
    assert.equal(arbiter.current(), null);
    assert.equal(sink.heardMs(sink.plays[0]!), 30_000);
    assert.equal(clock.pending(), 0, 'no timer left behind');
  });

  test('a sound repeated until stopped plays on for hours and stops when told', () => {
    const { clock, sink, arbiter } = setup();
    mustPlay(arbiter, { layer: 'sound', name: 'alarm3', repeat: { until: null } });
    clock.advance(5 * 3600_000);
    assert.equal(arbiter.current()?.name, 'alarm3');
    assert.equal(arbiter.stop('sound'), 1);
    assert.equal(arbiter.current(), null);
    assert.equal(sink.heardMs(sink.plays[0]!), 5 * 3600_000);
  });
});

describe('who wins', () => {
  test('a new sound replaces the playing one', () => {
    const { clock, sink, arbiter, played } = setup();
    mustPlay(arbiter, { layer: 'sound', name: 'alert1', repeat: { until: null } });
    clock.advance(2_000);
    mustPlay(arbiter, { layer: 'sound', name: 'alert2', repeat: { until: null } });
    assert.deepEqual(played(), ['sound:alert1', 'sound:alert2']);
    assert.equal(sink.plays[0]?.stoppedAt, sink.plays[1]?.startedAt, 'alert1 was cut when alert2 began');
    assert.deepEqual(
      arbiter.entries().map((e) => e.name),
      ['alert2'],
      'the replaced sound is gone, not waiting',
    );
  });

  test('alarm is above speech and media, which are above sounds, which are above beeps', () => {
    const { arbiter, played } = setup();
    mustPlay(arbiter, { layer: 'beep', name: 'deviceDiscovered' });
    mustPlay(arbiter, { layer: 'sound', name: 'alert4', repeat: { until: null } });
    mustPlay(arbiter, { layer: 'speech', name: 'hello', clip: sine(300, 2000) });
    mustPlay(arbiter, { layer: 'media', name: 'song', clip: sine(500, 2000) });
    mustPlay(arbiter, { layer: 'alarm', name: 'alarm1', repeat: { until: null } });
    assert.deepEqual(played(), ['beep:deviceDiscovered', 'sound:alert4', 'speech:hello', 'media:song', 'alarm:alarm1']);
    assert.deepEqual(
      arbiter.entries().map((e) => [e.layer, e.name, e.audible]),
      [
        ['alarm', 'alarm1', true],
        ['sound', 'alert4', false],
      ],
      'media replaced speech (same priority); the beep was cut; the repeating sound waits beneath',
    );
  });

  test('a clip that plays once is refused below what plays; a repeating one waits beneath', () => {
    const { arbiter, played } = setup();
    mustPlay(arbiter, { layer: 'alarm', name: 'alarm2', repeat: { until: null } });
    const beep = arbiter.play({ layer: 'beep', name: 'system Armed' });
    assert.deepEqual(beep, { ok: false, reason: 'alarm "alarm2" is playing, above beep' });
    const speech = arbiter.play({ layer: 'speech', name: 'hello', clip: sine(300, 500) });
    assert.equal(speech.ok, false);
    const sound = arbiter.play({ layer: 'sound', name: 'doorbell2', repeat: { until: null } });
    assert.ok(sound.ok);
    assert.equal(sound.playing.audible, false);
    assert.deepEqual(played(), ['alarm:alarm2'], 'nothing below the alarm reached the sink');
  });

  test('when the alarm stops, the sound beneath is heard again where its loop has got to', () => {
    const { clock, sink, arbiter, played } = setup();
    const clip = library.get('sound', 'alert5')!;
    mustPlay(arbiter, { layer: 'sound', name: 'alert5', repeat: { until: null } });
    clock.advance(100);
    mustPlay(arbiter, { layer: 'alarm', name: 'alarm1', repeat: { until: null } });
    clock.advance(1_000);
    arbiter.stop('alarm');
    assert.deepEqual(played(), ['sound:alert5', 'alarm:alarm1', 'sound:alert5']);
    // 1100 ms into a 1200 ms loop: the resumed clip starts 1100 ms in and wraps to the start.
    const resumed = sink.plays[2]!;
    const offset = Math.round((1100 * clip.rate) / 1000);
    assert.deepEqual(resumed.pcm.samples.subarray(0, 100), clip.samples.subarray(offset, offset + 100));
    assert.equal(resumed.pcm.samples.length, clip.samples.length, 'a full loop, rotated');
  });

  test('a sound whose countdown ran out beneath the alarm is not heard after it', () => {
    const { clock, arbiter, played } = setup();
    mustPlay(arbiter, { layer: 'sound', name: 'alert3', repeat: { until: clock.now() + 10_000 } });
    mustPlay(arbiter, { layer: 'alarm', name: 'alarm5', repeat: { until: clock.now() + 60_000 } });
    clock.advance(60_000);
    assert.equal(arbiter.current(), null);
    assert.deepEqual(played(), ['sound:alert3', 'alarm:alarm5']);
  });

  test('speech that ends lets the sound beneath it be heard again', () => {
    const { clock, arbiter, played } = setup();
    mustPlay(arbiter, { layer: 'sound', name: 'doorbell5', repeat: { until: null } });
    mustPlay(arbiter, { layer: 'speech', name: 'front door', clip: sine(250, 1500) });
    clock.advance(1500);
    assert.deepEqual(played(), ['sound:doorbell5', 'speech:front door', 'sound:doorbell5']);
    assert.equal(arbiter.current()?.name, 'doorbell5');
  });
});

describe('mute and unmute', () => {
  test('mute silences the sink but keeps what plays and its countdown; unmute picks it up where it would be', () => {
    const { clock, sink, arbiter } = setup();
    mustPlay(arbiter, { layer: 'sound', name: 'alarm4', repeat: { until: clock.now() + 20_000 } });
    clock.advance(3_000);
    arbiter.setMuted(true);
    assert.equal(sink.playing(), undefined, 'nothing is heard');
    assert.equal(sink.plays[0]?.stoppedAt, clock.now());
    assert.deepEqual(
      arbiter.entries().map((e) => [e.name, e.audible]),
      [['alarm4', false]],
    );
    assert.equal(
      arbiter.play({ layer: 'beep', name: 'bootComplete' }).ok,
      false,
      'muted or not, a beep is refused below a sound',
    );
    clock.advance(5_000);
    arbiter.setMuted(false);
    assert.equal(sink.plays.length, 2);
    assert.equal(sink.playing()?.name, 'alarm4');
    clock.advance(12_000);
    assert.equal(arbiter.current(), null, 'the countdown ran on while muted');
    assert.equal(
      sink.heardMs(sink.plays[0]!) + sink.heardMs(sink.plays[1]!),
      15_000,
      'heard 3 s, muted 5 s, heard 12 s',
    );
  });

  test('a sound asked for while muted is held silently and heard on unmute', () => {
    const { sink, arbiter } = setup();
    arbiter.setMuted(true);
    const p = mustPlay(arbiter, { layer: 'sound', name: 'alert2', repeat: { until: null } });
    assert.equal(p.audible, false);
    assert.equal(sink.plays.length, 0);
    arbiter.setMuted(false);
    assert.equal(sink.playing()?.name, 'alert2');
  });

  test('a beep that ended while muted is not heard on unmute', () => {
    const { clock, sink, arbiter } = setup();
    arbiter.setMuted(true);
    mustPlay(arbiter, { layer: 'beep', name: 'factoryReset' });
    clock.advance(5_000);
    arbiter.setMuted(false);
    assert.equal(sink.plays.length, 0);
  });
});

describe('volume scales the samples', () => {
  test('at gateway volume 50 the RMS is half that at 100 (linear amplitude)', () => {
    const loud = setup(100);
    const half = setup(50);
    for (const { arbiter } of [loud, half])
      mustPlay(arbiter, { layer: 'sound', name: 'alarm1', repeat: { until: null } });
    const a = rmsOf(loud.sink.plays[0]!.pcm.samples);
    const b = rmsOf(half.sink.plays[0]!.pcm.samples);
    assert.ok(a > 0.3, `alarm1 is loud at 100 (${a})`);
    assert.ok(Math.abs(b / a - 0.5) < 0.001, `ratio ${b / a}`);
    assert.equal(half.sink.plays[0]?.gain, 0.5);
  });

  test("a request's own volume multiplies the gateway volume", () => {
    const { sink, arbiter } = setup(80);
    mustPlay(arbiter, { layer: 'beep', name: 'networkConnected', volume: 25 });
    assert.equal(sink.plays[0]?.gain, 0.2);
    const raw = library.get('beep', 'networkConnected')!;
    assert.ok(Math.abs(rmsOf(sink.plays[0]!.pcm.samples) / rmsOf(raw.samples) - 0.2) < 0.001);
  });

  test('a volume change re-sends the rest of what plays at the new gain; volume 0 is silence, still playing', () => {
    const { clock, sink, arbiter } = setup(100);
    mustPlay(arbiter, { layer: 'speech', name: 'talk', clip: sine(440, 4000) });
    clock.advance(1000);
    arbiter.setVolume(0);
    assert.equal(sink.plays.length, 2);
    assert.equal(rmsOf(sink.plays[1]!.pcm.samples), 0);
    assert.equal(durationMs(sink.plays[1]!.pcm), 3000, 'the remaining three seconds');
    assert.equal(arbiter.current()?.name, 'talk');
  });
});

describe('the alarm API', () => {
  test('one call rings at the top priority until stopped, and one call stops it', () => {
    const { clock, arbiter, played } = setup();
    mustPlay(arbiter, { layer: 'alarm', name: 'alarm1', repeat: { until: null } });
    clock.advance(3600_000);
    assert.equal(arbiter.current()?.layer, 'alarm');
    assert.equal(arbiter.stop('alarm'), 1);
    assert.equal(arbiter.current(), null);
    assert.deepEqual(played(), ['alarm:alarm1']);
  });

  test('an alarm given an end time stops by itself then', () => {
    const { clock, arbiter } = setup();
    mustPlay(arbiter, { layer: 'alarm', name: 'alarm3', repeat: { until: clock.now() + 180_000 } });
    clock.advance(180_000);
    assert.equal(arbiter.current(), null);
  });

  test('an end time of Infinity rings until stopped', () => {
    const { clock, arbiter } = setup();
    const p = mustPlay(arbiter, { layer: 'alarm', name: 'alarm4', repeat: { forMs: Number.POSITIVE_INFINITY } });
    assert.equal(p.endsAt, null);
    clock.advance(10 * 86_400_000);
    assert.equal(arbiter.current()?.name, 'alarm4');
  });

  test('stopping by id stops that request only, not a newer one', () => {
    const { arbiter } = setup();
    const first = mustPlay(arbiter, { layer: 'alarm', name: 'alarm1', repeat: { until: null } });
    mustPlay(arbiter, { layer: 'alarm', name: 'alarm2', repeat: { until: null } });
    assert.equal(arbiter.stop(first.id), 0);
    assert.equal(arbiter.current()?.name, 'alarm2');
  });
});

describe('bad requests are refused as values', () => {
  const cases: [string, PlayRequest, RegExp][] = [
    ['an unknown sound', { layer: 'sound', name: 'alert9', repeat: { until: null } }, /no sound is named "alert9"/],
    ['a sound name as a beep', { layer: 'beep', name: 'alert1' }, /no beep is named "alert1"/],
    ['an empty clip', { layer: 'media', name: 'x', clip: { rate: 22050, samples: new Int16Array(0) } }, /has no audio/],
    ['an end time in the past', { layer: 'alarm', name: 'alarm1', repeat: { until: 0 } }, /not in the future/],
    ['a repeat for no time', { layer: 'sound', name: 'alert1', repeat: { forMs: 0 } }, /repeat.forMs is not above 0/],
    [
      'a repeat for NaN',
      { layer: 'sound', name: 'alert1', repeat: { forMs: Number.NaN } },
      /repeat.forMs is not above 0/,
    ],
    ['an unknown layer', { layer: 'siren' as never, name: 'alarm1' }, /layer "siren" is unknown/],
  ];
  for (const [what, req, reason] of cases) {
    test(`${what} is refused and changes nothing`, () => {
      const { sink, arbiter } = setup();
      const r = arbiter.play(req);
      assert.equal(r.ok, false);
      assert.match((r as { reason: string }).reason, reason);
      assert.equal(sink.plays.length, 0);
      assert.equal(arbiter.current(), null);
    });
  }
});
