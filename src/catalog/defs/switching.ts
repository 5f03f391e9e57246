/** Switching, channels, identify, inching, motor and device-level capabilities of spec 2.6. */
import { bool, int, map, num, obj, oneOf, opt } from '../schema.ts';
import type { CapabilityDef } from '../types.ts';
import { CHANNEL, CHANNEL_1_4, NONE, onOff, plain } from './common.ts';

const onOffToggle = oneOf('on', 'off', 'toggle');

const power = plain('power', '1100', 'Switches the whole device.', obj({ powerState: onOffToggle }), {
  powerState: 'on',
});

const toggle: CapabilityDef = {
  capability: 'toggle',
  doc: 'One switch channel of a multi-channel device; several channels may be in one body.',
  naming: CHANNEL,
  body: { permission: '1100', state: obj({ toggleState: onOffToggle }) },
  examples: {
    declaration: [
      { capability: 'toggle', permission: '1100', name: '1' },
      { capability: 'toggle', permission: '1100', name: '2' },
    ],
    control: [{ toggle: { '1': { toggleState: 'on' }, '2': { toggleState: 'off' } } }],
    report: [{ toggle: { '1': { toggleState: 'off' } } }],
  },
};

const toggleInching: CapabilityDef = {
  capability: 'toggle-inching',
  doc: 'Inching (auto-off) per channel; configuration only, no state and no body.',
  naming: NONE,
  body: {
    permission: '0010',
    control: null,
    settings: {
      toggleInchingSetting: {
        type: 'object',
        permission: '11',
        doc: '`value.supported.<channel>`: enable, inchingSwitch, delay (ms), min_delay, max_delay',
        value: obj({
          supported: map(
            obj({
              enable: bool(),
              inchingSwitch: onOff(),
              delay: int({ min: 0, unit: 'ms' }),
              min_delay: opt(int({ min: 0, unit: 'ms' })),
              max_delay: opt(int({ min: 0, unit: 'ms' })),
            }),
            { keyPattern: /^[A-Za-z0-9]+$/, keyDoc: 'a channel name' },
          ),
        }),
      },
    },
  },
  examples: {
    declaration: [
      {
        capability: 'toggle-inching',
        permission: '0010',
        settings: {
          toggleInchingSetting: {
            permission: '11',
            type: 'object',
            value: {
              supported: {
                '1': { enable: true, inchingSwitch: 'off', delay: 1000, min_delay: 500, max_delay: 3600000 },
              },
            },
          },
        },
      },
    ],
  },
};

const startup = plain(
  'startup',
  '1100',
  'Power-on behaviour.',
  obj({ startup: oneOf('on', 'stay', 'off', 'toggle') }),
  {
    startup: 'stay',
  },
);

const toggleStartup: CapabilityDef = {
  capability: 'toggle-startup',
  doc: 'Power-on behaviour per channel.',
  naming: CHANNEL,
  body: { permission: '1100', state: obj({ startup: oneOf('on', 'stay', 'off') }) },
  examples: {
    declaration: [{ capability: 'toggle-startup', permission: '1100', name: '1' }],
    control: [{ 'toggle-startup': { '1': { startup: 'off' } } }],
    report: [{ 'toggle-startup': { '1': { startup: 'on' } } }],
  },
};

const inching = plain(
  'inching',
  '0010',
  'Inching (auto-off) of the whole device; configuration only, no state and no body.',
  obj({}),
  {},
  {
    control: null,
    state: undefined,
    settings: {
      inchingEnable: { type: 'boolean', permission: '11', doc: 'inching on or off' },
      inchingSwitch: { type: 'enum', permission: '11', doc: 'state inching returns to', values: ['on', 'off'] },
      inchingDelay: { type: 'numeric', permission: '11', doc: 'delay before switching back (ms)' },
    },
    settingsExample: {
      inchingEnable: { permission: '11', type: 'boolean', value: true },
      inchingSwitch: { permission: '11', type: 'enum', value: 'off', values: ['on', 'off'] },
      inchingDelay: { permission: '11', type: 'numeric', value: 1000, min: 500, max: 3600000, unit: 'ms' },
    },
  },
);

const countdown = obj({ countdown: num({ min: 0, unit: 's', doc: 'seconds to identify for' }) });

const identify: CapabilityDef = {
  capability: 'identify',
  doc: 'Makes the device identify itself (blink, beep). Commanded with a countdown although its permission is report.',
  naming: NONE,
  body: { permission: '0100', state: obj({ identify: bool('true while identifying') }), control: countdown },
  examples: {
    declaration: [{ capability: 'identify', permission: '0100' }],
    control: [{ identify: { countdown: 3 } }],
    report: [{ identify: { identify: true } }],
  },
};

const toggleIdentify: CapabilityDef = {
  capability: 'toggle-identify',
  doc: 'Identify per channel. Not used for reporting in one stated firmware version.',
  naming: CHANNEL_1_4,
  body: { permission: '1100', state: obj({ identify: bool('true while identifying') }), control: countdown },
  examples: {
    declaration: [{ capability: 'toggle-identify', permission: '1100', name: '1' }],
    control: [{ 'toggle-identify': { '1': { countdown: 5 } } }],
    report: [{ 'toggle-identify': { '1': { identify: true } } }],
  },
};

const system = plain('system', '1000', 'Device-level actions: restart.', obj({ restart: oneOf(true) }), {
  restart: true,
});

const configuration = plain(
  'configuration',
  '1100',
  'Reporting resolution of the device (seconds).',
  obj({
    deviceConfiguration: obj({
      defaultResolution: int({ min: 0, unit: 's' }),
      maxResolution: int({ min: 0, unit: 's' }),
      minResolution: int({ min: 0, unit: 's' }),
    }),
  }),
  { deviceConfiguration: { defaultResolution: 60, maxResolution: 3600, minResolution: 10 } },
);

const motorControl = plain(
  'motor-control',
  '1100',
  'Drives a motor (curtain, blind).',
  obj({ motorControl: oneOf('open', 'close', 'stop', 'lock') }),
  { motorControl: 'open' },
);

const motorReverse = plain(
  'motor-reverse',
  '1100',
  'Motor direction: true forward, false reverse.',
  obj({ motorReverse: bool() }),
  { motorReverse: true },
);

const motorClb = plain(
  'motor-clb',
  '0100',
  'Motor calibration: `normal` (calibrated) or `calibration` (in progress). Report only.',
  obj({ motorClb: oneOf('normal', 'calibration') }),
  { motorClb: 'normal' },
);

/** Capabilities that are one on/off switch of a feature (`{<capability>:{powerState}}`). */
const onOffFeatures = [
  'window-detection',
  'child-lock',
  'anti-direct-blow',
  'horizontal-swing',
  'vertical-swing',
  'eco',
].map((c) =>
  plain(c, '1100', `Turns the ${c.replace(/-/g, ' ')} feature on or off.`, obj({ powerState: onOff() }), {
    powerState: 'on',
  }),
);

export const switchingCapabilities: readonly CapabilityDef[] = [
  power,
  toggle,
  toggleInching,
  startup,
  identify,
  motorControl,
  motorReverse,
  motorClb,
  inching,
  ...onOffFeatures,
  toggleStartup,
  toggleIdentify,
  configuration,
  system,
];
