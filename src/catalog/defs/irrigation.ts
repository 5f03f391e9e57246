/** Irrigation (spec 2.6): three fixed names, a capability-level query and its result. */
import { arr, date, num, obj, oneOf, opt, tagged, union } from '../schema.ts';
import type { CapabilityDef } from '../types.ts';
import { rangeSetting } from './common.ts';

const workModes = ['MANUAL', 'TIMER', 'CYCLE-TIMER', 'VOLUME', 'CYCLE-VOLUME'];
const workModeState = obj({ workMode: oneOf(...workModes) });

const action = (first: string, unit: string) =>
  obj({ [first]: num({ min: 0, unit }), intervalDuration: num({ min: 0, unit: 'minutes' }), count: num({ min: 0 }) });

const autoController = tagged('type', {
  time: obj({ type: oneOf('time'), action: action('perDuration', 'minutes') }),
  volume: obj({ type: oneOf('volume'), action: action('perConsumedVolume', 'L') }),
});

const irrigation: CapabilityDef = {
  capability: 'irrigation',
  doc: 'Irrigation valve: work status and statistics, work mode, automatic controller.',
  naming: {
    kind: 'fixed',
    names: {
      'work-status': {
        permission: '0101',
        state: obj({
          realTimeVolume: opt(num({ min: 0, unit: 'L' })),
          start: opt(date()),
          end: opt(date()),
          dailyVolume: opt(num({ min: 0, unit: 'L' })),
        }),
        control: null,
        settings: { volumeUnit: { type: 'enum', permission: '01', doc: 'unit of volumes', values: ['L'] } },
      },
      'work-mode': {
        permission: '0100',
        // The spec writes the body as the bare mode `{irrigation:{work-mode:<mode>}}`; `{workMode}` is served too.
        state: workModeState,
        report: union(oneOf(...workModes), workModeState),
        settings: {
          supportedModes: {
            type: 'enum',
            permission: '01',
            doc: 'work modes of the device; a configured list replaces the default',
            defaults: workModes,
          },
        },
        narrowing: [{ setting: 'supportedModes', field: 'workMode', by: 'values' }],
      },
      'auto-controller': {
        permission: '1100',
        state: autoController,
        settings: {
          volumeRange: rangeSetting('range of perConsumedVolume (min, max, unit or step)'),
          timeRange: rangeSetting('range of perDuration (min, max, unit or step)'),
          cycleCountRange: rangeSetting('range of count (min, max, step)'),
        },
      },
    },
  },
  query: obj({
    type: oneOf('oneDay', '30Days', '180Days'),
    timeRange: obj({ start: date(), end: opt(date('defaults to the current time')) }),
  }),
  result: obj({
    type: oneOf('oneDay', '30Days', '180Days'),
    irrigationIntervals: arr(
      obj({
        volume: num({ min: 0, unit: 'L' }),
        duration: num({ min: 0, unit: 'minutes' }),
        start: date(),
        end: date(),
      }),
    ),
  }),
  examples: {
    declaration: [
      {
        capability: 'irrigation',
        permission: '0101',
        name: 'work-status',
        settings: { volumeUnit: { permission: '01', type: 'enum', value: 'L', values: ['L'] } },
      },
      { capability: 'irrigation', permission: '0100', name: 'work-mode' },
      {
        capability: 'irrigation',
        permission: '1100',
        name: 'auto-controller',
        settings: { volumeRange: { permission: '01', type: 'numeric', min: 1, max: 1000, unit: 'L' } },
      },
    ],
    control: [
      {
        irrigation: {
          'auto-controller': { type: 'time', action: { perDuration: 10, intervalDuration: 60, count: 3 } },
        },
      },
      {
        irrigation: {
          'auto-controller': { type: 'volume', action: { perConsumedVolume: 20, intervalDuration: 120, count: 2 } },
        },
      },
    ],
    report: [
      {
        irrigation: {
          'work-status': { realTimeVolume: 12.5, start: '2024-05-01T06:00:00.000Z', dailyVolume: 40 },
          'work-mode': 'TIMER',
        },
      },
      {
        irrigation: {
          type: 'oneDay',
          irrigationIntervals: [
            { volume: 12, duration: 10, start: '2024-05-01T06:00:00.000Z', end: '2024-05-01T06:10:00.000Z' },
          ],
        },
      },
    ],
    query: [{ irrigation: { type: 'oneDay', timeRange: { start: '2024-05-01T00:00:00.000Z' } } }],
  },
};

export const irrigationCapabilities: readonly CapabilityDef[] = [irrigation];
