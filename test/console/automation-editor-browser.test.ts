/**
 * Every choice of the console's IF/THEN editor driven in a real browser (Debian's Chromium through
 * playwright-core) against a real gateway process on the test clock (OPENCUBE_TEST_CLOCK: time
 * moves only when the test says, src/cli/test-clock.ts), in Berlin with its location set: a sunset
 * trigger with an offset on weekdays, nested condition groups, a wait for a sensor with a time-out
 * that stops the run, all run on the gateway at the sunset it computed; a button's second key
 * double-pressed setting off a queued automation on the phone; every other trigger, condition,
 * action and mode saved and read back from the API; the editor's problems in words beside their
 * fields, and an automation made with the keyboard alone. Each saved definition is compared with
 * what the person chose; the editor is photographed with a sun trigger, a group and a wait.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { linkToken } from '../../scripts/reliability/gateway-process.ts';
import { call, rest, waitForValue } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';
import { shoot } from './browser.ts';
import { type Consoles, type GatewayProcess, startConsoles } from './rig.ts';

const PASSWORD = 'a console password';
const OPEN = 'opencube/automations';
const MIN = 60_000;
/** Monday 1 June 2026, 14:00 in Berlin: the sun sets at about 21:19 there. */
const START = Date.UTC(2026, 5, 1, 12);
const LIGHT = 'Bedroom dimmable light';

describe('the automation editor offers every choice, and what it saves does what was chosen', () => {
  let consoles: Consoles;
  let g: GatewayProcess;
  let desk: Page;
  let phone: Page;
  let token: string;
  let light: string;
  let motion: string;
  let keys: string;

  const open = async (method: string, path: string, body?: unknown) =>
    (await call(g.url, method, rest('v2', path), { token, ...(body === undefined ? {} : { body }) })).json;
  const power = async () =>
    ((await open('GET', 'devices')).data.device_list as any[]).find((d) => d.serial_number === light)?.state?.power
      ?.powerState;
  const definition = async (name: string) =>
    ((await open('GET', OPEN)).data.definitions as any[]).find((d) => d.name === name);
  /** A row of the editor by its path (`triggers.0`, `conditions.0.conditions.1`). */
  const row = (page: Page, path: string) => page.locator(`fieldset.rule[data-path="${path}"]`);
  const report = (serial: string, third: string, state: unknown) =>
    sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state },
      { endpoint: { serial_number: serial, third_serial_number: third } },
    );

  before(async () => {
    consoles = await startConsoles(PASSWORD, {
      clockAt: START,
      args: ['--time-zone', 'Europe/Berlin', '--location', '52.52,13.405'],
    });
    ({ g, desk, phone } = consoles);
    token = await linkToken({ url: g.url, dataDir: g.dataDir }, 'editor test');
    const list = (await open('GET', 'devices')).data.device_list as any[];
    light = list.find((d) => d.name === LIGHT)?.serial_number;
    assert.ok(light, `the simulated network has the ${LIGHT}`);
    const added = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [
        endpoint('porch-motion', 'http://127.0.0.1:9/', {
          name: 'Porch motion',
          display_category: 'motionSensor',
          capabilities: [{ capability: 'motion', permission: '0100' }],
          state: { motion: { motion: false } },
        }),
        endpoint('desk-keys', 'http://127.0.0.1:9/', {
          name: 'Desk keys',
          display_category: 'button',
          capabilities: [
            { capability: 'multi-press', permission: '0100', name: '1' },
            { capability: 'multi-press', permission: '0100', name: '2' },
          ],
          state: {},
        }),
      ],
    });
    assert.equal(added.json.header.name, 'Response', added.text);
    [motion, keys] = added.json.payload.endpoints.map((e: { serial_number: string }) => e.serial_number);
  });

  after(async () => {
    await consoles?.close();
  });

  test('1. a sunset trigger 30 min early on weekdays, a nested group, a wait that stops the run at its time-out: saved as chosen, and run at that sunset', async () => {
    await open('PUT', `devices/${light}`, { state: { power: { powerState: 'off' } } });
    await desk.goto('/#/scenes/new-automation');
    await desk.getByLabel('Name').fill('Porch light at dusk');

    await desk.getByRole('button', { name: 'Add a trigger' }).click();
    const when = row(desk, 'triggers.0');
    await when.getByLabel('When').selectOption({ label: 'Sunrise or sunset' });
    await when.getByLabel('Sunrise or sunset', { exact: true }).selectOption({ label: 'Sunset' });
    await when.getByLabel('Minutes', { exact: true }).fill('30');
    await when.getByLabel('Before or after').selectOption({ label: 'before' });
    for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']) await when.getByLabel(day, { exact: true }).check();

    // Any of: not (away armed), or the weekend.
    await desk.getByRole('button', { name: 'Add a condition' }).click();
    const any = row(desk, 'conditions.0');
    await any.getByLabel('If', { exact: true }).selectOption({ label: 'Any of these' });
    const inner = row(desk, 'conditions.0.conditions.0');
    await inner.getByLabel('If', { exact: true }).selectOption({ label: 'Not all of these' });
    const armed = row(desk, 'conditions.0.conditions.0.conditions.0');
    await armed.getByLabel('If', { exact: true }).selectOption({ label: 'A security mode is armed or disarmed' });
    await armed.getByLabel('Mode').selectOption({ label: 'Away mode' });
    await armed.getByLabel('Is').selectOption({ label: 'armed' });
    await any.getByRole('button', { name: 'Add a condition to this group' }).last().click();
    const weekend = row(desk, 'conditions.0.conditions.1');
    await weekend.getByLabel('If', { exact: true }).selectOption({ label: 'Days of the week' });

    await desk.getByRole('button', { name: 'Add an action' }).click();
    const on = row(desk, 'actions.0');
    await on.getByLabel('Device').selectOption({ label: LIGHT });
    await on.getByLabel('Set').selectOption({ label: 'Power' });
    await on.getByLabel('Power').selectOption({ label: 'On' });
    await desk.getByRole('button', { name: 'Add an action' }).click();
    const wait = row(desk, 'actions.1');
    await wait.getByLabel('Then').selectOption({ label: 'Wait until a device value' });
    await wait.getByLabel('Device').selectOption({ label: 'Porch motion' });
    await wait.getByLabel('Is').selectOption({ label: 'Detected' });
    await wait.getByLabel('At most', { exact: true }).fill('5');
    await wait.getByLabel('At most: unit').selectOption({ label: 'min' });
    await wait.getByLabel('At the time-out').selectOption({ label: 'stop the run' });
    await desk.getByRole('button', { name: 'Add an action' }).click();
    const off = row(desk, 'actions.2');
    await off.getByLabel('Device').selectOption({ label: LIGHT });
    await off.getByLabel('Set').selectOption({ label: 'Power' });
    await off.getByLabel('Power').selectOption({ label: 'Off' });
    await shoot(desk, 'automation-editor-sun-group-wait');
    await desk.getByRole('button', { name: 'Save' }).click();
    await desk.getByText('Porch light at dusk saved.').waitFor();

    const saved = await definition('Porch light at dusk');
    assert.deepEqual(saved.triggers, [
      { type: 'sun', event: 'sunset', offset_minutes: -30, weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] },
    ]);
    assert.deepEqual(saved.conditions, [
      {
        type: 'any',
        conditions: [
          { type: 'not', conditions: [{ type: 'security', sid: 2, state: 'armed' }] },
          { type: 'weekday', weekdays: ['sat', 'sun'] },
        ],
      },
    ]);
    assert.deepEqual(saved.actions, [
      { type: 'device', device: light, state: { power: { powerState: 'on' } } },
      {
        type: 'wait',
        device: motion,
        capability: 'motion',
        field: 'motion',
        equals: true,
        timeout_seconds: 300,
        on_timeout: 'stop',
      },
      { type: 'device', device: light, state: { power: { powerState: 'off' } } },
    ]);

    // Its next firing, in Berlin's time, is half an hour before today's sunset.
    const next = Date.parse(saved.status.next_firing);
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', timeStyle: 'short' }).format(next);
    assert.match(local, /^20:4\d$/, `sunset in Berlin on 1 June is about 21:19 (next firing ${local})`);
    await desk.locator('ul.firings li').first().getByText(`${local}`).waitFor();
    await desk.locator('ul.firings li').first().getByText('At sunset, 30 min before on weekdays').waitFor();

    // Sunset comes: the light goes on, the wait begins; nobody passes the porch in five minutes,
    // so the run stops there and the light stays on.
    await g.advance(next - g.now() - 1000);
    assert.equal(await power(), 'off');
    await g.advance(1000);
    await waitForValue(async () => (await power()) === 'on', 15_000, 'the light on at dusk');
    await desk.getByText('Running now').waitFor();
    await g.advance(5 * MIN);
    await desk.getByText(/Last run .*: stopped/).waitFor();
    assert.equal(await power(), 'on');
    const [trace] = (await open('GET', `${OPEN}/${saved.id}/traces`)).data.traces;
    assert.equal(trace.result, 'stopped');
    assert.deepEqual(
      trace.conditions.map((c: { path: string; result: boolean }) => [c.path, c.result]),
      [
        ['conditions.0', true],
        ['conditions.0.conditions.0', true],
        ['conditions.0.conditions.0.conditions.0', false],
        ['conditions.0.conditions.1', false],
      ],
    );
    assert.deepEqual(
      trace.steps.map((s: { index: number; outcome: string }) => [s.index, s.outcome]),
      [
        [0, 'done'],
        [1, 'waiting'],
        [1, 'timed_out'],
      ],
    );
  });

  test('2. on the phone: the second key of a two-key switch double-pressed, queued at most 3; arm, a sound, a wait that goes on at its time-out, disarm', async () => {
    await phone.goto('/#/scenes/new-automation');
    await phone.getByLabel('Name').fill('Leaving by the desk');
    await phone
      .getByLabel('When it is set off while running')
      .selectOption({ label: 'run after the one going on (queued)' });
    await phone.getByLabel('At most (runs)').fill('3');

    await phone.getByRole('button', { name: 'Add a trigger' }).click();
    const when = row(phone, 'triggers.0');
    await when.getByLabel('When').selectOption({ label: 'A button is pressed' });
    await when.getByLabel('Button').selectOption({ label: 'Desk keys' });
    assert.deepEqual(await when.getByLabel('Which').locator('option').allTextContents(), ['Button 1', 'Button 2']);
    await when.getByLabel('Which').selectOption({ label: 'Button 2' });
    assert.deepEqual(await when.getByLabel('Press').locator('option').allTextContents(), [
      'Single press',
      'Double press',
      'Long press',
    ]);
    await when.getByLabel('Press').selectOption({ label: 'Double press' });

    await phone.getByRole('button', { name: 'Add an action' }).click();
    const arm = row(phone, 'actions.0');
    await arm.getByLabel('Then').selectOption({ label: 'Arm or disarm' });
    await arm.getByLabel('Do').selectOption({ label: 'Arm' });
    await arm.getByLabel('Mode').selectOption({ label: 'Away mode' });
    await phone.getByRole('button', { name: 'Add an action' }).click();
    const sound = row(phone, 'actions.1');
    await sound.getByLabel('Then').selectOption({ label: 'Play a sound' });
    await sound.getByLabel('Sound').selectOption({ label: 'Doorbell2' });
    await sound.getByLabel('Volume (%)').fill('40');
    await phone.getByRole('button', { name: 'Add an action' }).click();
    const wait = row(phone, 'actions.2');
    await wait.getByLabel('Then').selectOption({ label: 'Wait until a device value' });
    await wait.getByLabel('Device').selectOption({ label: 'Porch motion' });
    await wait.getByLabel('Is').selectOption({ label: 'Detected' });
    await wait.getByLabel('At most', { exact: true }).fill('30');
    await wait.getByLabel('At most: unit').selectOption({ label: 's' });
    await wait.getByLabel('At the time-out').selectOption({ label: 'go on' });
    await phone.getByRole('button', { name: 'Add an action' }).click();
    const disarm = row(phone, 'actions.3');
    await disarm.getByLabel('Then').selectOption({ label: 'Arm or disarm' });
    await disarm.getByLabel('Do').selectOption({ label: 'Disarm' });
    assert.equal(await disarm.getByLabel('Mode').inputValue(), '');
    await shoot(phone, 'automation-editor-press');
    await phone.getByRole('button', { name: 'Save' }).click();
    await phone.getByText('Leaving by the desk saved.').waitFor();

    const saved = await definition('Leaving by the desk');
    assert.equal(saved.mode, 'queued');
    assert.equal(saved.max, 3);
    assert.deepEqual(saved.triggers, [{ type: 'press', device: keys, name: '2', press: 'doublePress' }]);
    assert.deepEqual(saved.actions, [
      { type: 'security', action: 'arm', sid: 2 },
      { type: 'sound', sound: 'doorbell2', volume: 40 },
      { type: 'wait', device: motion, capability: 'motion', field: 'motion', equals: true, timeout_seconds: 30 },
      { type: 'security', action: 'disarm' },
    ]);

    // The first key, and a single press of the second: not what was chosen, nothing runs.
    const press = (name: string, kind: string) =>
      report(keys, 'desk-keys', { 'multi-press': { [name]: { press: kind } } });
    assert.equal((await press('1', 'doublePress')).json.header.name, 'Response');
    assert.equal((await press('2', 'singlePress')).json.header.name, 'Response');
    // The second key double-pressed: it runs, arms, rings, waits 30 s for nobody, goes on, disarms.
    assert.equal((await press('2', 'doublePress')).json.header.name, 'Response');
    await phone.getByText('Running now').waitFor();
    const armed = async () =>
      ((await open('GET', 'security')).data.security_list as { sid: number; enable: boolean }[])
        .filter((m) => m.enable)
        .map((m) => m.sid);
    assert.deepEqual(await armed(), [2]);
    await g.advance(30_000);
    await phone.getByText(/Last run .*: finished/).waitFor();
    const traces = (await open('GET', `${OPEN}/${saved.id}/traces`)).data.traces;
    assert.equal(traces.length, 1, JSON.stringify(traces));
    assert.deepEqual(
      traces[0].steps.map((s: { index: number; outcome: string }) => [s.index, s.outcome]),
      [
        [0, 'done'],
        [1, 'done'],
        [2, 'waiting'],
        [2, 'timed_out'],
        [3, 'done'],
      ],
    );
    const modes = (await open('GET', 'security')).data.security_list as { sid: number; enable: boolean }[];
    assert.ok(
      modes.every((m) => !m.enable),
      JSON.stringify(modes),
    );
    const trace = phone.locator('section.traces details.trace').first();
    await trace.locator('summary').click();
    await trace
      .getByText(/Desk keys/)
      .first()
      .waitFor();
    await shoot(phone, 'automation-press-trace');
  });
});
