/**
 * The capabilities -> Matter mapping, without matter.js: every capability of the catalog is mapped
 * or left out with its reason in docs/matter.md; devices plan into the endpoints and device types a
 * user expects; states become Matter values in Matter's units; and every command a controller
 * sends becomes a D4 body the catalog's own validator accepts (or a refusal with its reason).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { type CapabilityObject, capabilityDef, validateCommand } from '../../src/catalog/index.ts';
import type { DeviceRecord } from '../../src/core/devices/contract.ts';
import { type Intent, translate } from '../../src/integrations/matter/commands.ts';
import { withMappingDoc } from '../../src/integrations/matter/docs.ts';
import { leftOut, mappingTable } from '../../src/integrations/matter/mapping-table.ts';
import { planDevice } from '../../src/integrations/matter/plan.ts';
import {
  airQuality,
  batteryValues,
  clip,
  differing,
  endpointValues,
  fromLevel,
  fromMireds,
  toIlluminance,
  toLevel,
  toMireds,
} from '../../src/integrations/matter/values.ts';
import { catalogUnits, coverage } from '../helpers/coverage.ts';

const { mapped, omitted } = coverage(mappingTable, leftOut);

describe('every capability is mapped or left out', () => {
  for (const { capability, name } of catalogUnits()) {
    const what = name ? `${capability} ${name}` : capability;
    test(`${what} is either mapped to Matter or listed as left out`, () => {
      assert.ok(mapped(capability, name) || omitted(capability, name), `${what} is neither mapped nor left out`);
    });
  }

  test('the rows name capabilities the catalog has', () => {
    for (const row of [...mappingTable, ...leftOut]) assert.ok(capabilityDef(row.capability), row.capability);
  });

  test('docs/matter.md holds the mapping generated from the table (run npm run docs), with every reason', () => {
    const doc = readFileSync('docs/matter.md', 'utf8');
    assert.equal(doc, withMappingDoc(doc));
    for (const l of leftOut) assert.ok(doc.includes(l.reason), `why ${l.capability} is left out is in the docs`);
  });
});

function device(
  display_category: string,
  capabilities: CapabilityObject[],
  state: Record<string, unknown> = {},
): DeviceRecord {
  return {
    serial_number: 's1',
    driver: 'thirdparty',
    driver_ref: 'r',
    name: 'Device',
    manufacturer: 'ACME',
    model: 'M',
    firmware_version: '1',
    display_category,
    capabilities,
    state,
    online: true,
  } as DeviceRecord;
}
const cap = (capability: string, name?: string, permission = '1100'): CapabilityObject =>
  ({ capability, permission, ...(name ? { name } : {}) }) as CapabilityObject;

describe('devices plan into the endpoints a user expects', () => {
  const cases: [string, DeviceRecord, string[]][] = [
    ['an on/off bulb is an On/Off Light', device('light', [cap('power')]), ['OnOffLight']],
    ['a dimmable bulb is a Dimmable Light', device('light', [cap('power'), cap('brightness')]), ['DimmableLight']],
    [
      'a white-spectrum bulb is a Color Temperature Light',
      device('light', [cap('power'), cap('brightness'), cap('color-temperature')]),
      ['ColorTemperatureLight'],
    ],
    ['a plug is an On/Off Plug-in Unit', device('plug', [cap('power')]), ['OnOffPlugInUnit']],
    [
      'a two-channel switch is two On/Off Plug-in Units',
      device('switch', [cap('toggle', '1'), cap('toggle', '2')]),
      ['OnOffPlugInUnit', 'OnOffPlugInUnit'],
    ],
    [
      'a door sensor is a Contact Sensor',
      device('contactSensor', [cap('contact', undefined, '0100')]),
      ['ContactSensor'],
    ],
    [
      'a motion sensor with a lux reading is an Occupancy Sensor and a Light Sensor',
      device('motionSensor', [cap('motion', undefined, '0100'), cap('illumination', undefined, '0100')]),
      ['OccupancySensor', 'LightSensor'],
    ],
    [
      'a climate sensor is a Temperature Sensor and a Humidity Sensor',
      device('temperatureAndHumiditySensor', [
        cap('temperature', undefined, '0100'),
        cap('humidity', undefined, '0100'),
      ]),
      ['TemperatureSensor', 'HumiditySensor'],
    ],
    ['a device with nothing Matter shows has no endpoint', device('sensor', [cap('rssi', undefined, '0100')]), []],
  ];
  for (const [title, d, types] of cases)
    test(title, () =>
      assert.deepEqual(
        planDevice(d).endpoints.map((e) => e.deviceType),
        types,
      ),
    );

  test('a rename does not change the Matter shape (the endpoint is kept), a new function does', () => {
    const a = device('light', [cap('power'), cap('brightness')]);
    assert.equal(planDevice({ ...a, name: 'Other' } as DeviceRecord).signature, planDevice(a).signature);
    assert.notEqual(planDevice(device('light', [cap('power')])).signature, planDevice(a).signature);
  });
});

describe('states become Matter values in Matter units', () => {
  test('brightness 0..100 % is level 1..254 and back', () => {
    assert.equal(toLevel(100), 254);
    assert.equal(toLevel(0), 1);
    assert.equal(toLevel(50), 127);
    assert.equal(fromLevel(127), 50);
    assert.equal(fromLevel(0), 1, 'a light that is on is never at 0 %');
    for (let b = 1; b <= 100; b++) assert.equal(fromLevel(toLevel(b)), b, `brightness ${b}`);
  });

  test('colour temperature 0 (warm, 2000 K) .. 100 (cool, 6500 K) is 500 .. 154 mireds and back', () => {
    assert.equal(toMireds(0), 500);
    assert.equal(toMireds(100), 154);
    for (let ct = 0; ct <= 100; ct += 5) assert.ok(Math.abs(fromMireds(toMireds(ct)) - ct) <= 1, `ct ${ct}`);
    assert.equal(fromMireds(1000), 0, 'warmer than the range is clamped');
    assert.equal(fromMireds(0), 100, 'a zero from a controller is clamped, not a division by zero');
  });

  test('a light, a contact sensor and a climate sensor read from their state', () => {
    const light = device('light', [cap('power'), cap('brightness')], {
      power: { powerState: 'on' },
      brightness: { brightness: 50 },
    });
    assert.deepEqual(endpointValues(planDevice(light).endpoints[0]!, light), {
      onOff: { onOff: true },
      levelControl: { currentLevel: 127 },
    });
    const door = device('contactSensor', [cap('contact', undefined, '0100')], { contact: { contact: true } });
    assert.deepEqual(endpointValues(planDevice(door).endpoints[0]!, door), { booleanState: { stateValue: false } });
    const climate = device('temperatureAndHumiditySensor', [cap('temperature'), cap('humidity')], {
      temperature: { temperature: -5.25 },
      humidity: { humidity: 101 },
    });
    const [t, h] = planDevice(climate).endpoints;
    assert.deepEqual(endpointValues(t!, climate), { temperatureMeasurement: { measuredValue: -525 } });
    assert.deepEqual(endpointValues(h!, climate), { relativeHumidityMeasurement: { measuredValue: 10000 } });
  });

  test('values a device reports wrongly are left out, never sent as NaN or a string', () => {
    const bad = [{ brightness: 'x' }, { brightness: Number.NaN }, { brightness: null }, 'x', 5, null];
    for (const b of bad) {
      const light = device('light', [cap('power'), cap('brightness')], { power: { powerState: 'dim' }, brightness: b });
      assert.deepEqual(endpointValues(planDevice(light).endpoints[0]!, light), {}, JSON.stringify(b));
    }
  });

  test('battery, illuminance, air quality and labels', () => {
    const d = device('contactSensor', [cap('contact', undefined, '0100'), cap('battery', undefined, '0100')], {
      battery: { battery: 15 },
    });
    assert.deepEqual(batteryValues(planDevice(d), d), { powerSource: { batPercentRemaining: 30, batChargeLevel: 1 } });
    const unknown = { ...d, state: { battery: { battery: -1 } } };
    assert.deepEqual(batteryValues(planDevice(d), unknown), { powerSource: { batPercentRemaining: null } });
    assert.equal(toIlluminance(0), 0);
    assert.equal(toIlluminance(1), 1);
    assert.equal(toIlluminance(1000), 30001);
    assert.equal(toIlluminance(1e12), 0xfffe);
    assert.equal(airQuality(undefined, undefined), 0);
    assert.equal(airQuality(10, 2500), 5);
    assert.equal(clip('Wohnzimmer Deckenleuchte über dem Esstisch'), 'Wohnzimmer Deckenleuchte über d');
    assert.ok(Buffer.byteLength(clip('💡'.repeat(20))) <= 32, 'cut on a character boundary, within 32 bytes');
  });
});

describe('a report sets on the bridge only what changed', () => {
  /** A struct as matter.js's state view shows it: an object of its own class, not a plain one. */
  class StructView {
    constructor(readonly occupied: boolean) {}
  }
  const holds: Record<string, Record<string, unknown>> = {
    onOff: { onOff: true },
    levelControl: { currentLevel: 127, minLevel: 1 },
    occupancySensing: { occupancy: new StructView(true) },
    temperatureMeasurement: { measuredValue: null },
  };
  const current = (behavior: string) => holds[behavior];

  test('a report that repeats every value the endpoint shows sets nothing', () => {
    const patch = {
      onOff: { onOff: true },
      levelControl: { currentLevel: 127 },
      occupancySensing: { occupancy: { occupied: true } },
      temperatureMeasurement: { measuredValue: null },
    };
    assert.deepEqual(differing(patch, current), {});
  });

  test('only the values that changed are set, each under its behavior', () => {
    const patch = {
      onOff: { onOff: false },
      levelControl: { currentLevel: 127, minLevel: 2 },
      occupancySensing: { occupancy: { occupied: false } },
      temperatureMeasurement: { measuredValue: 2150 },
    };
    assert.deepEqual(differing(patch, current), {
      onOff: { onOff: false },
      levelControl: { minLevel: 2 },
      occupancySensing: { occupancy: { occupied: false } },
      temperatureMeasurement: { measuredValue: 2150 },
    });
  });

  test('a value the endpoint does not hold yet, or a behavior it lacks, is set as reported (matter.js then says what it refuses)', () => {
    assert.deepEqual(differing({ levelControl: { maxLevel: 254 }, fanControl: { percentSetting: 50 } }, current), {
      levelControl: { maxLevel: 254 },
      fanControl: { percentSetting: 50 },
    });
  });
});

describe("a controller's commands become D4 bodies the catalog accepts", () => {
  const light = device('light', [cap('power'), cap('brightness'), cap('color-temperature')], {
    power: { powerState: 'off' },
    brightness: { brightness: 40 },
  });
  const plan = planDevice(light);
  const ep = plan.endpoints[0]!;
  const accepted = (intent: Intent) => {
    const t = translate(intent, ep, plan, light);
    assert.ok(t.ok, `${JSON.stringify(intent)}: ${!t.ok && t.message}`);
    const r = validateCommand(light.capabilities, (t.body as { state: unknown }).state);
    assert.ok(r.ok, `${JSON.stringify(intent)} -> ${JSON.stringify(t.body)}: ${!r.ok && r.errors.join('; ')}`);
    return t.body;
  };

  test('on, off and toggle', () => {
    assert.deepEqual(accepted({ kind: 'onOff', to: 'on' }), { state: { power: { powerState: 'on' } } });
    assert.deepEqual(accepted({ kind: 'onOff', to: 'off' }), { state: { power: { powerState: 'off' } } });
    assert.deepEqual(accepted({ kind: 'onOff', to: 'toggle' }), { state: { power: { powerState: 'toggle' } } });
  });

  test('levels, with and without on/off, at every Matter level', () => {
    assert.deepEqual(accepted({ kind: 'level', level: 127, withOnOff: false }), {
      state: { brightness: { brightness: 50 } },
    });
    assert.deepEqual(accepted({ kind: 'level', level: 254, withOnOff: true }), {
      state: { power: { powerState: 'on' }, brightness: { brightness: 100 } },
    });
    assert.deepEqual(accepted({ kind: 'level', level: 1, withOnOff: true }), {
      state: { power: { powerState: 'off' } },
    });
    for (let level = 0; level <= 254; level++) accepted({ kind: 'level', level, withOnOff: level % 2 === 0 });
    for (const delta of [-254, -50, -1, 1, 3, 50, 254])
      translate({ kind: 'levelStep', delta, withOnOff: true }, ep, plan, light);
  });

  test('colour temperatures across the whole mired range, and beyond it', () => {
    for (const mireds of [0, 1, 153, 154, 200, 370, 500, 501, 65279]) accepted({ kind: 'mireds', mireds });
  });

  test('what the device cannot do is refused with the reason', () => {
    const plug = device('plug', [cap('power')]);
    const pp = planDevice(plug);
    const r = translate({ kind: 'level', level: 100, withOnOff: false }, pp.endpoints[0]!, pp, plug);
    assert.deepEqual(r, { ok: false, message: 'the endpoint has no level' });
    const c = translate({ kind: 'mireds', mireds: 300 }, pp.endpoints[0]!, pp, plug);
    assert.deepEqual(c, { ok: false, message: 'the light has no colour temperature' });
  });
});
