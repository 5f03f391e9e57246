/**
 * The 15 sounds and 8 beeps of spec 2.8 as designs: each a short pattern of synthesised notes,
 * made to be told apart by ear (pitch, rhythm, timbre and length differ) and measured to be
 * different by test/audio/sounds.test.ts. Sounds are loops: they end on a rest so that a sound
 * played for a countdown repeats with a beat. scripts/gen-sounds.ts renders them to assets/sounds/.
 */
import { beepNames, soundNames } from '../../catalog/speaker.ts';
import type { Step } from './synth.ts';

export interface SoundDesign {
  /** The name on the wire (spec spelling for beeps). */
  name: string;
  kind: 'sound' | 'beep';
  /** What it sounds like, for docs/audio.md. */
  description: string;
  steps: readonly Step[];
}

const C5 = 523.25;
const D5 = 587.33;
const E5 = 659.25;
const G4 = 392.0;
const G5 = 783.99;
const C6 = 1046.5;
const E6 = 1318.51;
const G6 = 1567.98;

const sounds: Record<string, Omit<SoundDesign, 'name' | 'kind'>> = {
  alert1: {
    description: 'two rising chirps',
    steps: [{ hz: [880, 1320], ms: 120 }, { rest: 60 }, { hz: [880, 1320], ms: 120 }, { rest: 400 }],
  },
  alert2: {
    description: 'three short square beeps at 1 kHz',
    steps: [
      ...[1, 2, 3].flatMap((): Step[] => [{ hz: 1000, ms: 80, wave: 'square', amp: 1 }, { rest: 70 }]),
      { rest: 400 },
    ],
  },
  alert3: {
    description: 'one falling sweep',
    steps: [{ hz: [1500, 600], ms: 500, wave: 'triangle' }, { rest: 300 }],
  },
  alert4: {
    description: 'a fast warble between 700 and 900 Hz',
    steps: [
      ...[1, 2, 3, 4, 5].flatMap((): Step[] => [
        { hz: 700, ms: 40, attackMs: 1, releaseMs: 1 },
        { hz: 900, ms: 40, attackMs: 1, releaseMs: 1 },
      ]),
      { rest: 400 },
    ],
  },
  alert5: {
    description: 'a long soft tone with tremolo',
    steps: [{ hz: C5, ms: 900, tremoloHz: 8, attackMs: 40, releaseMs: 80 }, { rest: 300 }],
  },
  doorbell1: {
    description: 'ding-dong (E5 then C5 bells)',
    steps: [{ hz: E5, ms: 600, wave: 'bell', amp: 0.85 }, { hz: C5, ms: 900, wave: 'bell', amp: 0.85 }, { rest: 500 }],
  },
  doorbell2: {
    description: 'three falling chimes (G5, E5, C5)',
    steps: [
      { hz: G5, ms: 400, wave: 'bell', amp: 0.85 },
      { hz: E5, ms: 400, wave: 'bell', amp: 0.85 },
      { hz: C5, ms: 800, wave: 'bell', amp: 0.85 },
      { rest: 400 },
    ],
  },
  doorbell3: {
    description: 'four chimes of a clock tower (E5, C5, D5, G4)',
    steps: [
      { hz: E5, ms: 450, wave: 'bell', amp: 0.85 },
      { hz: C5, ms: 450, wave: 'bell', amp: 0.85 },
      { hz: D5, ms: 450, wave: 'bell', amp: 0.85 },
      { hz: G4, ms: 900, wave: 'bell', amp: 0.85 },
      { rest: 400 },
    ],
  },
  doorbell4: {
    description: 'ding-ding on a high bell (C6)',
    steps: [{ hz: C6, ms: 300, wave: 'bell', amp: 0.85 }, { hz: C6, ms: 700, wave: 'bell', amp: 0.85 }, { rest: 500 }],
  },
  doorbell5: {
    description: 'a rising arpeggio (C5, E5, G5, C6)',
    steps: [
      { hz: C5, ms: 200, wave: 'bell', amp: 0.85 },
      { hz: E5, ms: 200, wave: 'bell', amp: 0.85 },
      { hz: G5, ms: 200, wave: 'bell', amp: 0.85 },
      { hz: C6, ms: 700, wave: 'bell', amp: 0.85 },
      { rest: 500 },
    ],
  },
  alarm1: {
    description: 'a siren sweeping 600-1200 Hz up and down, once a second',
    steps: [
      { hz: [600, 1200], ms: 500, amp: 0.7, attackMs: 0, releaseMs: 0 },
      { hz: [1200, 600], ms: 500, amp: 0.7, attackMs: 0, releaseMs: 0 },
    ],
  },
  alarm2: {
    description: 'fast square pulses at 2 kHz',
    steps: [1, 2, 3, 4].flatMap((): Step[] => [{ hz: 2000, ms: 100, wave: 'square', amp: 1 }, { rest: 100 }]),
  },
  alarm3: {
    description: 'a two-tone hi-lo siren (960/770 Hz)',
    steps: [
      { hz: 960, ms: 400, wave: 'triangle', amp: 0.7, attackMs: 2, releaseMs: 2 },
      { hz: 770, ms: 400, wave: 'triangle', amp: 0.7, attackMs: 2, releaseMs: 2 },
    ],
  },
  alarm4: {
    description: 'a harsh 400 Hz buzzer',
    steps: [{ hz: 400, ms: 600, wave: 'square', amp: 1 }, { rest: 200 }],
  },
  alarm5: {
    description: 'a rising whoop (400-1600 Hz)',
    steps: [{ hz: [400, 1600], ms: 800, amp: 0.7, releaseMs: 30 }, { rest: 150 }],
  },
};

const beeps: Record<string, Omit<SoundDesign, 'name' | 'kind'>> = {
  bootComplete: {
    description: 'three rising notes (C6, E6, G6)',
    steps: [{ hz: C6, ms: 90 }, { rest: 20 }, { hz: E6, ms: 90 }, { rest: 20 }, { hz: G6, ms: 140 }],
  },
  networkConnected: {
    description: 'a short low note, then a longer higher one',
    steps: [{ hz: 660, ms: 70 }, { rest: 30 }, { hz: 990, ms: 140 }],
  },
  networkDisconnected: {
    description: 'a short high note, then a longer lower one',
    steps: [{ hz: 990, ms: 70 }, { rest: 30 }, { hz: 660, ms: 140 }],
  },
  systemShutdown: {
    description: 'three slow falling notes (G5, E5, C5)',
    steps: [
      { hz: G5, ms: 150, wave: 'triangle' },
      { hz: E5, ms: 150, wave: 'triangle' },
      { hz: C5, ms: 300, wave: 'triangle', releaseMs: 60 },
    ],
  },
  deviceDiscovered: {
    description: 'a quick double blip at 1760 Hz',
    steps: [{ hz: 1760, ms: 40 }, { rest: 40 }, { hz: 1760, ms: 40 }, { rest: 40 }],
  },
  'system Armed': {
    description: 'two firm 1200 Hz beeps and a higher confirmation',
    steps: [
      { hz: 1200, ms: 150, amp: 0.55 },
      { rest: 60 },
      { hz: 1200, ms: 150, amp: 0.55 },
      { rest: 60 },
      { hz: 1600, ms: 250, amp: 0.55 },
    ],
  },
  'system Disarmed': {
    description: 'one soft falling low tone',
    steps: [{ hz: [650, 500], ms: 400, releaseMs: 120 }],
  },
  factoryReset: {
    description: 'a long low tone, then three fast high blips',
    steps: [
      { hz: 440, ms: 500, wave: 'triangle' },
      { rest: 50 },
      ...[1, 2, 3].flatMap((): Step[] => [{ hz: 1760, ms: 50, amp: 0.5 }, { rest: 50 }]),
    ],
  },
};

/** Every design, sounds first, in the order of the catalog. */
export const soundDesigns: readonly SoundDesign[] = Object.freeze([
  ...soundNames.map((name) => ({
    name,
    kind: 'sound' as const,
    ...(sounds[name] as Omit<SoundDesign, 'name' | 'kind'>),
  })),
  ...beepNames.map((name) => ({ name, kind: 'beep' as const, ...(beeps[name] as Omit<SoundDesign, 'name' | 'kind'>) })),
]);

/** The file a sound or beep is kept in under assets/sounds/: `alert1.wav`, `beep-system-armed.wav`. */
export function soundFile(kind: 'sound' | 'beep', name: string): string {
  if (kind === 'sound') return `${name}.wav`;
  const kebab = name
    .replace(/\s+/g, '-')
    .replace(/([a-z])([A-Z])/g, '$1-$2')
    .toLowerCase();
  return `beep-${kebab}.wav`;
}
