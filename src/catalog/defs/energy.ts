/** Energy capabilities of spec 2.6: consumption statistics, voltage, current, power. */
import { arr, bool, date, int, num, obj, oneOf, opt, tagged, union } from '../schema.ts';
import type { BodyDef, CapabilityDef, SettingDef, SettingItem } from '../types.ts';
import { CHANNEL_1_4, NONE, sensor } from './common.ts';

const timeRange = obj({ start: date(), end: opt(date('defaults to the current time')) });

/** Query fields: `type` required; `timeRange` required when type is `summarize`. */
const queryFields = tagged('type', {
  summarize: obj({ type: oneOf('summarize'), timeRange }),
  rlSummarize: obj({ type: oneOf('rlSummarize'), timeRange: opt(timeRange) }),
});

/** History query `{type:summarize,timeRange}` or real-time query `{powerConsumption:{type:rlSummarize}}`. */
const query = union(queryFields, obj({ powerConsumption: queryFields }));

/** Starts (`true`) or stops (`false`) real-time statistics. */
const control = obj({
  powerConsumption: obj({
    rlSummarize: bool('true starts, false stops real-time statistics'),
    timeRange: opt(timeRange),
  }),
});

const interval = obj({ usage: num({ min: 0, unit: '0.01 kWh' }), start: date(), end: date() });

/** The result a device reports; `electricityIntervals` is split by `resolution` and absent for `rlSummarize`. */
const result = tagged('type', {
  summarize: obj({
    type: oneOf('summarize'),
    rlSummarize: opt(num({ min: 0, unit: '0.01 kWh' })),
    electricityIntervals: arr(interval),
  }),
  rlSummarize: obj({ type: oneOf('rlSummarize'), rlSummarize: opt(num({ min: 0, unit: '0.01 kWh' })) }),
});

const settings: Record<string, SettingDef> = {
  resolution: { type: 'numeric', permission: '01', doc: 'length of one statistics interval (s)' },
  timeZoneOffset: {
    type: 'numeric',
    permission: '01',
    doc: 'time zone of the statistics, hours',
    value: num({ min: -12, max: 14 }),
  },
};

const consumption: BodyDef = { permission: '1101', control, report: result, query, settings };
const settingsExample: Record<string, SettingItem> = {
  resolution: { permission: '01', type: 'numeric', value: 3600 },
  timeZoneOffset: { permission: '01', type: 'numeric', value: 8, min: -12, max: 14 },
};

const span = { start: '2024-05-01T00:00:00.000Z', end: '2024-05-02T00:00:00.000Z' };
const summary = {
  type: 'summarize',
  electricityIntervals: [{ usage: 120, start: '2024-05-01T00:00:00.000Z', end: '2024-05-01T01:00:00.000Z' }],
};

const powerConsumption: CapabilityDef = {
  capability: 'power-consumption',
  doc: 'Energy statistics: history (`summarize`) and real time (`rlSummarize`), in 0.01 kWh.',
  naming: NONE,
  body: consumption,
  examples: {
    declaration: [{ capability: 'power-consumption', permission: '1101', settings: { ...settingsExample } }],
    control: [
      { 'power-consumption': { powerConsumption: { rlSummarize: true, timeRange: span } } },
      { 'power-consumption': { powerConsumption: { rlSummarize: false } } },
    ],
    report: [{ 'power-consumption': summary }, { 'power-consumption': { type: 'rlSummarize', rlSummarize: 35 } }],
    query: [
      { 'power-consumption': { type: 'summarize', timeRange: span } },
      { 'power-consumption': { powerConsumption: { type: 'rlSummarize' } } },
    ],
  },
};

const togglePowerConsumption: CapabilityDef = {
  capability: 'toggle-power-consumption',
  doc: 'Energy statistics per channel: the fields, settings and queries of `power-consumption`, one level deeper.',
  naming: CHANNEL_1_4,
  body: consumption,
  examples: {
    declaration: [
      { capability: 'toggle-power-consumption', permission: '1101', name: '1', settings: { ...settingsExample } },
    ],
    control: [{ 'toggle-power-consumption': { '1': { powerConsumption: { rlSummarize: true, timeRange: span } } } }],
    report: [{ 'toggle-power-consumption': { '1': summary } }],
    query: [{ 'toggle-power-consumption': { '1': { type: 'summarize', timeRange: { start: span.start } } } }],
  },
};

const voltage = sensor(
  'voltage',
  'voltage',
  num({ unit: 'V' }),
  230.5,
  'Voltage. The spec shows only the state key; declared here as a report-only capability holding a number.',
);

const toggleVoltage = sensor('toggle-voltage', 'voltage', num({ unit: 'V' }), 229.8, 'Voltage (V).', {
  permission: '1100',
});

const centi = (unit: string) => int({ min: 0, unit });

const toggleElectricCurrent: CapabilityDef = {
  capability: 'toggle-electric-current',
  doc: 'Current per channel, in 0.01 A.',
  naming: CHANNEL_1_4,
  body: { permission: '0100', state: obj({ electricCurrent: centi('0.01 A') }) },
  examples: {
    declaration: [{ capability: 'toggle-electric-current', permission: '0100', name: '1' }],
    report: [{ 'toggle-electric-current': { '1': { electricCurrent: 152 } } }],
  },
};

const toggleElectricPower: CapabilityDef = {
  capability: 'toggle-electric-power',
  doc: 'Power per channel, in 0.01 W.',
  naming: CHANNEL_1_4,
  body: {
    permission: '0100',
    state: obj({
      electricPower: centi('0.01 W'),
      reactivePower: opt(int({ unit: '0.01 var' })),
      activePower: opt(int({ unit: '0.01 W' })),
      apparentPower: opt(int({ unit: '0.01 VA' })),
    }),
  },
  examples: {
    declaration: [{ capability: 'toggle-electric-power', permission: '0100', name: '2' }],
    report: [{ 'toggle-electric-power': { '2': { electricPower: 3500, activePower: 3400 } } }],
  },
};

export const energyCapabilities: readonly CapabilityDef[] = [
  powerConsumption,
  voltage,
  toggleVoltage,
  toggleElectricCurrent,
  toggleElectricPower,
  togglePowerConsumption,
];
