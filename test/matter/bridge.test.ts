/**
 * The Matter bridge end to end, with matter.js's own controller, in a private network namespace
 * that holds only loopback (scenario.ts does the work and prints what it saw). Without the
 * namespace the test says so and is skipped: it never runs Matter on a real interface.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureBuilt } from '../../scripts/build.mjs';
import { ensureChromium } from '../console/browser.ts';
import { canUnshare, runInLoopback } from '../helpers/netns.ts';

/** Matter device type ids (Matter Device Library). */
const T = {
  BridgedNode: 0x13,
  PowerSource: 0x11,
  OnOffLight: 0x100,
  DimmableLight: 0x101,
  ColorTemperatureLight: 0x10c,
  ExtendedColorLight: 0x10d,
  OnOffPlugInUnit: 0x10a,
  ContactSensor: 0x15,
  OccupancySensor: 0x107,
  LightSensor: 0x106,
  PressureSensor: 0x305,
  WaterLeakDetector: 0x43,
  TemperatureSensor: 0x302,
  WindowCovering: 0x202,
  SmokeCoAlarm: 0x76,
  Thermostat: 0x301,
  GenericSwitch: 0x0f,
  Fan: 0x2b,
  AirQualitySensor: 0x2c,
  HumiditySensor: 0x307,
};

let seen: any;
function scenario(): any {
  if (seen) return seen;
  // Installed out here if missing: inside the namespace there is no network to install it with.
  ensureChromium();
  // The scenario runs the gateway from dist/ (bin/opencube.js): built once here, before its commands start.
  ensureBuilt();
  const r = runInLoopback([join(import.meta.dirname, 'scenario.ts')], { timeout: 280_000 });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  seen = JSON.parse(last || '{}');
  assert.equal(seen.error, undefined, `scenario failed: ${seen.error}\n${seen.stderr ?? r.stderr}`);
  return seen;
}

const opts = {
  skip: canUnshare ? false : 'unshare -n is not permitted here (needs root): Matter is never run on a real interface',
  timeout: 300_000,
};

test(
  'a Matter controller commissions the bridge with the code `opencube matter` prints, and sees every mapped device with its device type',
  opts,
  () => {
    const s = scenario();
    assert.match(s.printed.manual, /^\d{11}$/);
    assert.equal(s.printed.qr, true, 'a QR payload (MT:...) is printed');
    assert.equal(s.commissioned, true);
    assert.ok(s.bridgedCount >= 8, `the simulated devices are bridged (${s.bridgedCount})`);
    assert.deepEqual(
      [...s.lightTypes].sort(),
      [T.BridgedNode, T.DimmableLight].sort(),
      'the dimmable light is one bridged Dimmable Light',
    );
    assert.equal(s.lightLabel, s.light.name, 'the controller shows the gateway name of the device');
    assert.ok(s.categories.contactSensor.includes(T.PowerSource), 'a battery device has a Power Source');
    assert.equal(s.battery.controller, s.battery.openApi * 2, 'the battery level in half percents');
    assert.ok(s.categories.plug.includes(T.OnOffPlugInUnit), 'a plug is an On/Off Plug-in Unit');
    assert.ok(
      s.categories.light.includes(T.ColorTemperatureLight),
      'a white-spectrum light is a Color Temperature Light',
    );
    assert.ok(s.categories.contactSensor.includes(T.ContactSensor));
    assert.ok(s.categories.motionSensor.includes(T.OccupancySensor));
    assert.ok(s.categories.waterLeakDetector.includes(T.WaterLeakDetector));
    assert.ok(s.categories.curtain.includes(T.WindowCovering), 'a curtain is a Window Covering');
    assert.ok(s.categories.smokeDetector.includes(T.SmokeCoAlarm), 'a smoke detector is a Smoke CO Alarm');
    assert.ok(s.categories.thermostat.includes(T.Thermostat), 'a radiator thermostat is a Thermostat');
    assert.ok(s.categories.button.includes(T.GenericSwitch), 'a wireless button is a Generic Switch');
    assert.ok(
      s.categories.fanLight.includes(T.Fan) && s.categories.fanLight.includes(T.DimmableLight),
      'a fan light is a Fan and a Dimmable Light under one bridged node',
    );
    assert.ok(s.categories.temperatureAndHumiditySensor.includes(T.TemperatureSensor));
    assert.ok(s.categories.temperatureAndHumiditySensor.includes(T.HumiditySensor));
    assert.equal(
      s.categories.switch.filter((t: number) => t === T.OnOffPlugInUnit).length,
      2,
      'a two-channel switch is one endpoint per channel',
    );
  },
);

test(
  'on/off and level from the controller go through D4 to the simulated Zigbee light and show on the Open API event stream',
  opts,
  () => {
    const s = scenario();
    assert.equal(s.onOnController, true, 'the controller sees the light on once the device reported it');
    assert.deepEqual(s.levelEvent, { brightness: { brightness: 50 } }, 'level 127 of 254 is 50 %');
    assert.ok(s.levelOnController >= 120 && s.levelOnController <= 130);
    assert.equal(s.openApiLight.power.powerState, 'on');
    assert.equal(s.openApiLight.brightness.brightness, 50);
  },
);

test(
  'a Zigbee group is one bridged light: the controller switches both lights with one command, and it leaves with the group',
  opts,
  () => {
    const s = scenario();
    assert.ok(s.groupTypes.includes(T.DimmableLight), `the group of two dimmable lights: ${s.groupTypes}`);
    assert.equal(s.groupLabel, 'Matter room');
    assert.equal(s.groupLightsOn, true, 'both members on');
    assert.equal(s.groupOnController, true, 'the group on as the controller reads it');
    assert.equal(s.groupGone, true);
  },
);

test('a thermostat raised by command and set by an attribute write from the controller goes through D4', opts, () => {
  const s = scenario();
  assert.equal(s.thermostatRaise.before, 2100);
  assert.deepEqual(s.thermostatRaise.event, {
    'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 22 } },
  });
  assert.deepEqual(s.thermostatWrite, { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 21.5 } } });
});

test(
  'a colour light is an Extended Color Light; a hue and saturation from the controller become RGB through D4',
  opts,
  () => {
    const s = scenario();
    assert.ok(s.colourTypes.includes(T.ExtendedColorLight));
    assert.deepEqual(
      s.colourEvent,
      { 'color-rgb': { red: 255, green: 0, blue: 0 } },
      'hue 0 at full saturation is red',
    );
    assert.deepEqual(s.colourOnController, { hue: 0, saturation: 254 });
  },
);

test(
  "a colour temperature from the controller reaches a white-spectrum light as the catalog's 0..100 scale",
  opts,
  () => {
    const s = scenario();
    // 370 mireds is 2703 K: (2703 - 2000) / 4500 of the way from warm (0) to cool (100).
    assert.deepEqual(s.whiteEvent, { 'color-temperature': { colorTemperature: 16 } });
  },
);

test("a fan mode written by the controller goes through D4 to the fan light's fan", opts, () => {
  const s = scenario();
  assert.deepEqual(s.fanWrite, { power: { powerState: 'on' }, mode: { fanLevel: { modeValue: 'high' } } });
  assert.equal(s.fanOnController, 100, 'High is 100 %');
});

test(
  "an air conditioner's mode, cooling setpoint and Identify from the controller reach its service as D4 directives",
  opts,
  () => {
    const s = scenario();
    assert.ok(s.acBefore.types.includes(T.Thermostat));
    assert.equal(s.acBefore.systemMode, 0, 'switched off is system mode Off');
    assert.equal(s.acBefore.local, 2700);
    assert.deepEqual(s.acCool, { power: { powerState: 'on' }, mode: { airConditionerMode: { modeValue: 'cool' } } });
    assert.deepEqual(s.acSetpoint, { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 23 } } });
    assert.deepEqual(s.acDirectives, [
      { power: { powerState: 'on' }, mode: { airConditionerMode: { modeValue: 'cool' } } },
      { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 23 } } },
      { identify: { countdown: 5 } },
    ]);
  },
);

test('a cover moved from the controller reports its new position through D4 and the event stream', opts, () => {
  const s = scenario();
  assert.deepEqual(s.coverEvent, { percentage: { percentage: 30 } }, '70 % closed in Matter is 30 % open');
  assert.equal(s.coverOnController, 7000);
  assert.equal(s.coverOpened, true, 'Up/Open opens it all the way (100 % open)');
});

test(
  'a third-party sensor synced later appears on the controller, and its reports reach it as attribute changes',
  opts,
  () => {
    const s = scenario();
    assert.ok(s.doorTypes.includes(T.ContactSensor));
    assert.ok(s.climateTypes.includes(T.TemperatureSensor) && s.climateTypes.includes(T.HumiditySensor));
    assert.equal(s.doorClosed, true, 'contact false (closed) is Matter stateValue true');
    assert.equal(s.doorOpenOnController, 'open');
    assert.equal(s.temperatureOnController, 2250, '22.5 °C is 2250 hundredths');
  },
);

test(
  'a pressure sensor and a light sensor are bridged with their device types, and their reports reach the controller',
  opts,
  () => {
    const s = scenario();
    assert.ok(s.weather.types.includes(T.PressureSensor), `a Pressure Sensor (0x305) in ${s.weather.types}`);
    assert.ok(s.weather.types.includes(T.LightSensor), `a Light Sensor (0x106) in ${s.weather.types}`);
    assert.equal(s.weather.pressureBefore, 1013, 'the synced 1013 hPa (tenths of a kPa)');
    assert.equal(s.weather.illuminanceBefore, 10001, '10 lux is 10000 x log10(10) + 1');
    assert.equal(s.weather.pressureReported, 998, 'a reported 998 hPa');
    assert.equal(s.weather.illuminanceReported, 30001, 'a reported 1000 lux');
  },
);

test('renaming a device renames it on the controller; removing it removes its endpoint', opts, () => {
  const s = scenario();
  assert.equal(s.renamed, 'Hall light');
  // The gateway itself renamed in the console: the bridge's node label follows without a restart.
  assert.notEqual(s.bridgeLabelBefore, 'Hall cube');
  assert.equal(s.gatewayRenamed, 200);
  assert.equal(s.bridgeLabelAfter, 'Hall cube');
  assert.equal(s.doorInPartsBefore, true);
  assert.equal(s.doorGone, true);
});

test(
  'after a restart the bridge keeps its code, its fabric and its endpoint numbers; the controller still commands it',
  opts,
  () => {
    const s = scenario();
    assert.equal(s.exitBeforeRestart, 0);
    assert.deepEqual(s.afterRestart, { sameCode: true, fabricListed: true });
    assert.equal(s.offAfterRestart, true);
    assert.equal(s.lightNumberKept, true);
    assert.equal(s.exitCode, 0, 'SIGTERM stops the gateway with its bridge cleanly');
  },
);

test(
  'once a controller has the bridge, `opencube matter` says pairing mode is closed and how to open it; `opencube matter open` lets a second controller add it with the same code, and closes after it',
  opts,
  () => {
    const s = scenario();
    assert.deepEqual(s.closedPrinted, { closed: true, advice: true, marked: true });
    assert.equal(s.openPrinted, true, 'open until a time, in 15 minutes');
    assert.equal(s.secondController, 2, 'two controllers listed, and pairing mode closed again');
  },
);

test(
  "the console's Matter card says pairing mode is closed, opens it with a countdown and the QR code, and closes it",
  opts,
  () => {
    const s = scenario();
    assert.deepEqual(s.console.pairing, { open: false, until: null });
    for (const width of ['desktop', 'phone']) {
      assert.equal(s[`cardOpened-${width}`], true);
      assert.deepEqual(s[`cardClosed-${width}`], { open: false, until: null });
    }
  },
);

test('the console shows the pairing code and the controllers, and removes them', opts, () => {
  const s = scenario();
  assert.deepEqual(
    { ...s.console, pairing: undefined },
    { enabled: true, sameCode: true, commissioned: true, fabrics: 2, pairing: undefined },
  );
  assert.equal(s.badFabric, 400);
  assert.equal(s.unknownFabric, 404);
  assert.deepEqual(s.removed, [200, 200]);
  assert.equal(s.afterRemoval.commissioned, false);
  assert.deepEqual(s.afterRemoval.pairing, { open: true, until: null }, 'with no controller, open until one adds it');
  assert.match(s.afterRemoval.printed, /not yet added to any controller/);
  assert.match(s.afterRemoval.printed, /pairing mode: open until a controller adds the bridge/);
});

test(
  "a command the device's service refuses is refused to the controller, and the device stays as it was",
  opts,
  () => {
    const s = scenario();
    assert.ok(s.lampTypes.includes(T.OnOffLight));
    assert.notEqual(s.refusedCommand, 'accepted');
    assert.match(s.refusedCommand, /Failure/, 'a Matter failure status (the reason is in the gateway log)');
    assert.equal(s.lampDirectives, 1, 'the command reached the service once, through the gateway');
    assert.equal(s.lampStillOff, true);
  },
);

test('no pairing secret is ever in the gateway log (at debug level)', opts, () => {
  const s = scenario();
  assert.ok(s.secretsLogged.logBytes > 1000, 'the log was read');
  assert.deepEqual(
    {
      passcode: s.secretsLogged.passcode,
      manualCode: s.secretsLogged.manualCode,
      qrPayload: s.secretsLogged.qrPayload,
    },
    { passcode: false, manualCode: false, qrPayload: false },
  );
});

test("a button's double press reaches the controller as the Switch events of a double press", opts, () => {
  const s = scenario();
  assert.ok(s.buttonTypes.includes(T.GenericSwitch));
  assert.deepEqual(s.doublePress, [
    'initialPress',
    'shortRelease',
    'initialPress',
    'multiPressOngoing',
    'shortRelease',
    'multiPressComplete',
  ]);
  assert.equal(s.doublePressCount, 2);
});

/** The dark modules of the console's QR code image (paths of `M{x} {y}h1v1h-1z`), as "x,y". */
function darkModules(svg: string): Set<string> {
  const d = /<path[^>]*\sd="([^"]*)"/.exec(svg)?.[1] ?? '';
  return new Set([...d.matchAll(/M(\d+) (\d+)h1v1h-1z/g)].map((m) => `${m[1]},${m[2]}`));
}

test('the console shows the QR code to scan and the pairing code, and turns the bridge off and on', opts, () => {
  const s = scenario();
  // A QR code: a finder pattern (a dark 7x7 ring, a light ring, a dark 3x3 centre) in three
  // corners, inside a light margin.
  const dark = darkModules(s.qrSvg);
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(s.qrSvg)?.[1]);
  const modules = size - 8;
  assert.ok([21, 25, 29].includes(modules), `a QR code of version 1 to 3, not ${modules} modules across`);
  for (const [cx, cy] of [
    [4, 4],
    [4 + modules - 7, 4],
    [4, 4 + modules - 7],
  ])
    for (let y = 0; y < 7; y++)
      for (let x = 0; x < 7; x++) {
        const ring = Math.max(Math.abs(x - 3), Math.abs(y - 3));
        assert.equal(dark.has(`${cx + x},${cy + y}`), ring !== 2, `finder at ${cx},${cy}: module ${x},${y}`);
      }
  for (let i = 0; i < size; i++) assert.equal(dark.has(`${i},0`) || dark.has(`0,${i}`), false, 'a light margin');

  assert.deepEqual(s.badSwitch, [400, 400, 400]);
  assert.equal(s.cardShown.qrDrawn, true, 'the browser drew the QR code');
  assert.match(s.cardShown.code, /^\d{4}-\d{3}-\d{4}$/);
  assert.equal(s.cardShown.code.replace(/-/g, ''), s.printed.manual, 'the code opencube matter prints');
  assert.deepEqual(s.turnedOff, { enabled: false, chosen_by: 'console' });
  assert.deepEqual(
    s.matterOffAfterRestart,
    { enabled: false, chosen_by: 'console' },
    "the console's choice outlives a restart",
  );
  assert.deepEqual(s.turnedOn, { enabled: true, chosen_by: 'console', sameCode: true });
  assert.deepEqual(
    s.afterReset,
    { enabled: true, newCode: true, fabricsBefore: 0, commissionedAgain: true, fabricsAfter: 1 },
    'a factory reset makes a new bridge, which a controller adds with the new code',
  );
  assert.match(
    s.offAdvice,
    /Turn it on in the console.*\n.*its choice is kept and wins over --matter-enabled/,
    'started with the flag on but kept off by the console: `opencube matter` points to the console',
  );
});
