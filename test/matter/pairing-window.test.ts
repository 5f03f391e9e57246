/**
 * Pairing mode opened again for another controller, on a manual clock: it closes exactly when its
 * time runs out, when a controller has been added through it, or when closed by hand, through
 * many windows in a row. matter.js's DeviceCommissioner is stood in for at its two calls (the
 * real one runs in the namespace scenario of bridge.test.ts, where a second controller is added).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type Commissioner,
  MIN_WINDOW_SECONDS,
  PairingWindow,
  WINDOW_SECONDS,
} from '../../src/integrations/matter/pairing-window.ts';
import { ManualClock, settle } from '../helpers/clock.ts';

/** The commissioner as matter.js behaves: one end callback per open window, called when it ends. */
function commissioner() {
  const calls: string[] = [];
  let ended: (() => void) | undefined;
  const c: Commissioner = {
    async allowBasicCommissioning(onEnd) {
      if (ended && ended !== onEnd) throw new Error('Already in commissioning mode with a different callback');
      ended = onEnd;
      calls.push('open');
    },
    async endCommissioning() {
      calls.push('end');
      const fn = ended;
      ended = undefined;
      fn?.();
    },
  };
  return {
    c,
    calls,
    open: () => ended !== undefined,
    /** A controller finished commissioning through the window: matter.js ends it. */
    controllerAdded: () => c.endCommissioning(),
  };
}

const S = 1000;

/** A window on a manual clock, over the stand-in commissioner, counting its closings. */
function rig() {
  const clock = new ManualClock();
  const m = commissioner();
  const closings: number[] = [];
  const w = new PairingWindow(
    () => m.c,
    clock,
    () => closings.push(clock.now()),
  );
  return { clock, m, w, closings };
}

describe('pairing mode for another controller', () => {
  test('it is open for the 15 standard minutes and closes exactly then, fifty windows in a row', async () => {
    const { clock, m, w, closings } = rig();
    for (let i = 0; i < 50; i++) {
      const opened = clock.now();
      const until = await w.open();
      assert.equal(until, opened + WINDOW_SECONDS * S);
      assert.equal(w.until, until);
      clock.advance(WINDOW_SECONDS * S - 1);
      await settle(0);
      assert.equal(m.open(), true, `window ${i}: still open a millisecond before`);
      clock.advance(1);
      await settle(0);
      assert.equal(m.open(), false, `window ${i}: closed at its end`);
      assert.equal(w.until, null);
      assert.equal(closings.at(-1), until);
      clock.advance(60 * S);
    }
    assert.equal(closings.length, 50);
    assert.equal(clock.pending(), 0, 'no timer left behind');
  });

  test('a controller added through it closes it at once, and its timer with it', async () => {
    const { clock, m, w, closings } = rig();
    for (let i = 0; i < 20; i++) {
      await w.open();
      clock.advance(i * 30 * S);
      await m.controllerAdded();
      assert.equal(w.until, null);
      assert.equal(clock.pending(), 0);
    }
    assert.equal(closings.length, 20);
    clock.advance(WINDOW_SECONDS * S);
    assert.equal(closings.length, 20, 'no late closing');
  });

  test('opened again while open, it runs 15 minutes from then; closed by hand, it ends now; a closed one closes nothing', async () => {
    const { clock, m, w, closings } = rig();
    await w.close();
    assert.deepEqual(m.calls, [], 'closing a window that is not open asks nothing of matter.js');
    const first = await w.open();
    clock.advance(10 * 60 * S);
    const second = await w.open();
    assert.equal(second, first + 10 * 60 * S);
    assert.equal(clock.pending(), 1, 'one timer');
    clock.advance(14 * 60 * S);
    assert.equal(w.until, second, 'past the first end, still open');
    await w.close();
    assert.equal(w.until, null);
    assert.equal(m.open(), false);
    assert.equal(closings.length, 1);
    assert.equal(clock.pending(), 0);
  });

  test('its length stays within what the Matter specification allows (3 to 15 minutes)', async () => {
    const { clock, w } = rig();
    for (const [asked, got] of [
      [10, MIN_WINDOW_SECONDS],
      [3600, WINDOW_SECONDS],
      [600, 600],
    ] as const) {
      assert.equal((await w.open(asked)) - clock.now(), got * S);
      await w.close();
    }
  });

  test('a stopped bridge leaves no timer, and its window does not call back', async () => {
    const { clock, w, closings } = rig();
    await w.open();
    w.stop();
    assert.equal(clock.pending(), 0);
    assert.equal(w.until, null);
    clock.advance(WINDOW_SECONDS * S);
    assert.equal(closings.length, 0);
  });
});
