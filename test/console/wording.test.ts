/**
 * The console's words (issue 23): a unit with every number, one spelling, no label that says its
 * capability twice, no channel on a device that has one, settings in words rather than JSON, the
 * radio's link quality off the cards, the time of every event a device page shows, "Running since"
 * as the gateway's start, and the login page's word after a restore. Layouts are checked for every
 * capability of the catalog; the rest on a gateway with the simulated network.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { capabilities } from '../../src/catalog/index.ts';
import type { CapabilityObject } from '../../src/catalog/types.ts';
import { deviceLayout } from '../../src/http/console/layout.ts';
import { RESTORE_NOTICE_MS } from '../../src/http/console/routes/auth.ts';
import { ManualClock } from '../helpers/clock.ts';
import { startGateway, type TestGateway, tempDir } from '../helpers/foundation.ts';
import { type ConsoleClient, consoleClient } from './client.ts';

const declared = capabilities.flatMap((def) =>
  def.examples.declaration.map((d) => ({ def: def.capability, declaration: d as CapabilityObject })),
);

/** Numbers with no unit, because they have none: a link quality (0-255) and an index. */
const UNITLESS = new Set(['lqi', 'ultraviolet-index']);

function everyLabel(caps: CapabilityObject[], tags?: Record<string, unknown>): string[] {
  const l = deviceLayout({ capabilities: caps, tags });
  return [
    ...l.controls.map((c) => c.label),
    ...l.readings.map((r) => r.label),
    ...l.settings.map((s) => s.label),
    ...l.capabilities.map((c) => c.label),
  ];
}

describe('the labels and values of every capability of the catalog', () => {
  for (const { def, declaration } of declared) {
    const title = declaration.name === undefined ? def : `${def} (${declaration.name})`;
    test(`${title}: every number has its unit, one spelling, no word said twice, settings in words`, () => {
      const l = deviceLayout({ capabilities: [declaration], tags: undefined });
      if (!UNITLESS.has(def)) {
        for (const c of l.controls)
          if (c.kind === 'range' || c.kind === 'number') assert.ok(c.unit, `control ${c.label} has no unit`);
      }
      for (const label of everyLabel([declaration])) {
        assert.doesNotMatch(label, /\bColor\b/, `"${label}": the console spells it Colour`);
        const [head, tail] = label.split(': ');
        if (tail !== undefined)
          assert.ok(!tail.toLowerCase().startsWith(head?.toLowerCase() ?? ''), `"${label}" says ${head} twice`);
      }
      for (const s of l.settings) assert.doesNotMatch(s.text, /[{}[\]"]/, `setting ${s.label}: ${s.text} is JSON`);
    });
  }

  test('numbers that are read have their units, the link quality and UV index alone without', () => {
    const missing = declared.flatMap(({ def, declaration }) => {
      const l = deviceLayout({ capabilities: [declaration], tags: undefined });
      return UNITLESS.has(def)
        ? []
        : l.readings.filter((r) => r.unit === undefined && r.words === undefined).map((r) => `${def}: ${r.label}`);
    });
    // Readings of words (a level, a press, a mode) or dates have no unit to show.
    const words = new Set([
      'motor-clb: Calibration',
      'press: Last press',
      'multi-press: Last press',
      'tamper-alert: Tamper',
      'illumination-level: Light level',
      'thermostat: Adaptive recovery status',
      'detect-hold: Presence hold',
      'irrigation: Start (work status)',
      'irrigation: End (work status)',
      'identify: Identifying',
      'toggle-identify: Identifying',
      'thermostat-mode-detect: Comfort (temperature)',
      'thermostat-mode-detect: Comfort (humidity)',
    ]);
    assert.deepEqual(
      missing.filter((m) => !words.has(m)),
      [],
    );
  });

  test('the colour temperature is a percentage from warm to cool', () => {
    const [c] = deviceLayout({
      capabilities: [{ capability: 'color-temperature', permission: '1100' }],
      tags: undefined,
    }).controls;
    assert.deepEqual([c?.label, c?.unit, c?.ends], ['Colour temperature', '%', ['Warm', 'Cool']]);
  });

  test('a thermostat reads "Thermostat mode" and "Target temperature (manual mode)", never the word twice', () => {
    const l = deviceLayout({
      capabilities: [
        { capability: 'thermostat', permission: '1100', name: 'thermostat-mode' },
        { capability: 'thermostat-target-setpoint', permission: '1110', name: 'manual-mode' },
        { capability: 'mode', permission: '1100', name: 'fanLevel' },
      ],
      tags: undefined,
    });
    assert.deepEqual(
      l.controls.map((c) => [c.label, c.unit]),
      [
        ['Thermostat mode', undefined],
        ['Target temperature (manual mode)', '°C'],
        ['Fan level', undefined],
      ],
    );
  });

  test('a plug with one outlet has no channel in its words; a switch with two names each by its label', () => {
    const plug: CapabilityObject[] = [
      { capability: 'power', permission: '1100' },
      { capability: 'toggle-electric-power', permission: '0100', name: '1' },
      { capability: 'toggle-startup', permission: '1100', name: '1' },
    ];
    for (const label of everyLabel(plug)) assert.doesNotMatch(label, /channel|\(1\)/, label);
    const gang: CapabilityObject[] = [
      { capability: 'toggle', permission: '1100', name: '1' },
      { capability: 'toggle', permission: '1100', name: '2' },
      { capability: 'multi-press', permission: '0100', name: '1' },
    ];
    const l = deviceLayout({ capabilities: gang, tags: { toggle: { '1': 'Ceiling' } } });
    assert.deepEqual(
      [...l.controls.map((c) => c.label), ...l.readings.map((r) => r.label)],
      ['Ceiling', 'Channel 2', 'Last press (Ceiling)'],
    );
    // A fan light's channel has a name of its own: the light, not a second "Power".
    const fan = deviceLayout({
      capabilities: [
        { capability: 'power', permission: '1100' },
        { capability: 'toggle', permission: '1100', name: 'light' },
      ],
      tags: undefined,
    });
    assert.deepEqual(
      fan.controls.map((c) => c.label),
      ['Power', 'Light'],
    );
  });

  test("the radio's readings are marked for the device page, not the card", () => {
    const l = deviceLayout({
      capabilities: [
        { capability: 'temperature', permission: '0100' },
        { capability: 'lqi', permission: '0100' },
        { capability: 'rssi', permission: '0100' },
      ],
      tags: undefined,
    });
    assert.deepEqual(
      l.readings.map((r) => [r.label, r.minor ?? false]),
      [
        ['Temperature', false],
        ['Link quality', true],
        ['Signal (RSSI)', true],
      ],
    );
  });
});

describe('a device page and the gateway page, on the simulated network', () => {
  const PASSWORD = 'a wording password';
  let g: TestGateway;
  let c: ConsoleClient;
  let started: number;

  before(async () => {
    started = Date.now();
    g = await startGateway({ overrides: { zigbee: { mode: 'sim' }, sim_devices: 16 } });
    await g.gateway.setConsolePassword(PASSWORD);
    c = consoleClient(g.url);
    assert.equal((await c.login(PASSWORD)).status, 200);
  });

  after(() => g?.stop());

  test('the events loaded with a device page carry their time', async () => {
    const list = (await c.call('GET', '/devices')).body.devices as {
      serial_number: string;
      display_category: string;
    }[];
    const light = list.find((d) => d.display_category === 'light');
    assert.ok(light);
    const before = Date.now();
    const on = await c.call('PUT', `/devices/${light.serial_number}`, { state: { power: { powerState: 'on' } } });
    assert.equal(on.status, 200);
    const page = (await c.call('GET', `/devices/${light.serial_number}`)).body;
    assert.ok(page.events.length > 0);
    for (const e of page.events) {
      const at = Date.parse(e.at);
      assert.ok(at >= started - 1000 && at <= Date.now(), `${e.type} at ${e.at}`);
    }
    const turnedOn = page.events.find((e: any) => e.data.payload?.power?.powerState === 'on');
    assert.ok(Date.parse(turnedOn.at) >= before - 1000, 'the newest event, at the time it happened');
  });

  test('"Running since" is when the gateway started, not when the host booted', async () => {
    const r = (await c.call('GET', '/runtime')).body;
    const since = Date.parse(r.started_at);
    assert.ok(since >= started - 1000 && since <= Date.now(), `${r.started_at}`);
    assert.ok(Date.parse(r.power_up_time) <= since, 'the host booted before');
    const page = (await c.call('GET', '/gateway')).body;
    assert.equal(page.runtime.started_at, r.started_at);
  });

  test('the sensors each mode watches are listed by name: the nursery motion sets off Away only', async () => {
    const s = (await c.call('GET', '/security')).body;
    const names = (sid: number) =>
      s.modes.find((m: any) => m.sid === sid).watching.map((w: any) => `${w.name}: ${w.kinds.join(',')}`);
    const motion = s.sensors.find((x: any) => x.kinds.includes('motion')).name;
    const door = s.sensors.find((x: any) => x.kinds.includes('contact')).name;
    for (const sid of [1, 3]) {
      assert.ok(names(sid).includes(`${door}: contact`), `mode ${sid}: ${names(sid)}`);
      assert.ok(!names(sid).some((n: string) => n.startsWith(`${motion}:`)), `mode ${sid} watches ${motion}`);
    }
    assert.ok(names(2).includes(`${motion}: motion`), `away: ${names(2)}`);
    assert.ok(s.always.length >= 3, 'smoke, gas and leak detectors ring in every mode');
  });
});

describe('the login page after a restore', () => {
  test("says when the store was restored (the password is the backup's) for a day, then no more", async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const clock = new ManualClock(Date.now());
    let g = await startGateway({ dataDir: dir, gatewayOptions: { clock } });
    t.after(() => g.stop());
    await g.gateway.setConsolePassword('the password of the backup');
    const file = join(dir, 'backup.db');
    await g.gateway.backup(file);
    await g.gateway.setConsolePassword('the password of today');
    const auth = async () => (await consoleClient(g.url).call('GET', '/auth')).body;
    assert.equal((await auth()).restored_at, null, 'no restore, no word');
    assert.equal((await g.gateway.stageRestore(file)).ok, true);
    g = await g.restart();
    const restored = await auth();
    assert.equal(restored.restored_at, new Date(clock.now()).toISOString());
    const c = consoleClient(g.url);
    assert.equal((await c.login('the password of today')).status, 401, "today's password no longer works");
    assert.equal((await c.login('the password of the backup')).status, 200);
    clock.advance(RESTORE_NOTICE_MS - 1);
    assert.notEqual((await auth()).restored_at, null);
    clock.advance(1);
    assert.equal((await auth()).restored_at, null, 'a day later, no more');
    g = await g.restart();
    assert.equal((await auth()).restored_at, null, 'a start without a restore says nothing');
  });
});
