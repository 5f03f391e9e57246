/** Light and position capabilities of spec 2.6: brightness, colour, percentage. */
import { num, obj } from '../schema.ts';
import type { CapabilityDef } from '../types.ts';
import { plain, rangeSetting, withDelta } from './common.ts';

const brightnessState = obj({ brightness: num({ min: 0, max: 100, unit: '%' }) });
const brightness: CapabilityDef = {
  ...plain(
    'brightness',
    '1100',
    'Brightness in percent.',
    brightnessState,
    { brightness: 80 },
    {
      control: withDelta(brightnessState, 'brightness'),
    },
  ),
};
brightness.examples.control?.push({ brightness: { brightnessDelta: -10 } });

const ctState = obj({ colorTemperature: num({ min: 0, max: 100, unit: '%', doc: '0 warm, 50 neutral, 100 cool' }) });
const colorTemperature = plain(
  'color-temperature',
  '1100',
  'Colour temperature on a 0 (warm) to 100 (cool) scale.',
  ctState,
  { colorTemperature: 50 },
  { control: withDelta(ctState, 'colorTemperature') },
);
colorTemperature.examples.control?.push({ 'color-temperature': { colorTemperatureDelta: 20 } });

const channel = num({ min: 0, max: 255 });
const colorRgb = plain(
  'color-rgb',
  '1100',
  'Colour as red, green, blue (all three required).',
  obj({ red: channel, green: channel, blue: channel }),
  { red: 255, green: 128, blue: 0 },
);

const percentageState = obj({ percentage: num({ min: 0, max: 100, unit: '%' }) });
const percentage = plain(
  'percentage',
  '1100',
  'A position or level in percent (curtain, blind). A `percentageRange` setting narrows it for the device.',
  percentageState,
  { percentage: 40 },
  {
    control: withDelta(percentageState, 'percentage'),
    settings: { percentageRange: rangeSetting('min, max, step of `percentage` for this device') },
    narrowing: [{ setting: 'percentageRange', field: 'percentage', by: 'range' }],
    settingsExample: { percentageRange: { permission: '01', type: 'numeric', min: 0, max: 100, step: 5 } },
  },
);
percentage.examples.control?.push({ percentage: { percentageDelta: 10 } });

export const lightingCapabilities: readonly CapabilityDef[] = [brightness, colorTemperature, colorRgb, percentage];
