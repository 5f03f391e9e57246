/**
 * The console's Scenes page in a real browser (Debian's Chromium through playwright-core) against
 * a real gateway process with the simulated Zigbee network, at desktop and phone widths: a scene
 * made in the editor from a light's own controls and run from the list; an automation made on the
 * phone in the IF/THEN editor (a motion sensor's values, a time window, the light, a wait); a value
 * out of the light's range stopped by its field, a device gone while editing refused with the
 * gateway's message under its row; the traces of a run (each action) and of a trigger not run (the
 * condition that did not hold); the switch; a removed sensor leaving the automation broken, on its
 * card and its page; a time trigger on weekdays and its next firings. Pages photographed at both
 * widths (.tmp/console-screenshots; the chosen ones in docs/console/).
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

describe('the Scenes page in a browser', () => {
  let consoles: Consoles;
  let g: GatewayProcess;
  let desk: Page;
  let phone: Page;
  let token: string;
  let light: { serial_number: string; name: string };
  let motion: string;

  const open = async (method: string, path: string, body?: unknown) =>
    (await call(g.url, method, rest('v2', path), { token, ...(body === undefined ? {} : { body }) })).json;
  const power = async () =>
    ((await open('GET', 'devices')).data.device_list as any[]).find((d) => d.serial_number === light.serial_number)
      ?.state?.power?.powerState;
  /** A row of the editor: the n-th of its kind (When / If / Then). */
  const row = (page: Page, path: string) => page.locator(`fieldset.rule[data-path="${path}"]`);

  before(async () => {
    consoles = await startConsoles(PASSWORD);
    ({ g, desk, phone } = consoles);
    token = await linkToken({ url: g.url, dataDir: g.dataDir }, 'scenes test');
    const list = (await open('GET', 'devices')).data.device_list as any[];
    light = list.find(
      (d) => d.display_category === 'light' && d.capabilities.some((c: any) => c.capability === 'brightness'),
    );
    assert.ok(light, 'the simulated network has a dimmable light');
    const sensor = endpoint('hall-motion', 'http://127.0.0.1:9/', {
      name: 'Hall motion',
      display_category: 'motionSensor',
      capabilities: [{ capability: 'motion', permission: '0100' }],
      state: { motion: { motion: false } },
    });
    const added = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [sensor] });
    motion = added.json.payload.endpoints[0].serial_number;
  });

  after(async () => {
    await consoles?.close();
  });

  test('1. a scene made from the light’s own controls, saved, listed, and run from the list: the light turns on', async () => {
    await open('PUT', `devices/${light.serial_number}`, { state: { power: { powerState: 'off' } } });
    await desk.getByRole('link', { name: 'Scenes' }).click();
    await desk.getByRole('heading', { name: 'Scenes and automations' }).waitFor();
    await desk.getByRole('link', { name: 'New scene' }).click();
    await desk.getByLabel('Name').fill('Reading light');
    await desk.getByRole('button', { name: 'Add an action' }).click();
    const action = row(desk, 'actions.0');
    await action.getByLabel('Device').selectOption({ label: light.name });
    await action.getByLabel('Set').selectOption({ label: 'Power' });
    await action.getByLabel('Power').selectOption({ label: 'On' });
    await desk.getByRole('button', { name: 'Add an action' }).click();
    const second = row(desk, 'actions.1');
    await second.getByLabel('Device').selectOption({ label: light.name });
    await second.getByLabel('Set').selectOption({ label: 'Brightness' });
    await second.getByLabel('Brightness (%)').fill('60');
    await shoot(desk, 'scene-editor');
    await desk.getByRole('button', { name: 'Save' }).click();
    await desk.getByText('Reading light saved.').waitFor();
    await desk.getByRole('heading', { name: 'Reading light' }).waitFor();

    await desk.getByRole('link', { name: '‹ Scenes and automations' }).click();
    const card = desk.locator('article.scene', { hasText: 'Reading light' });
    await card.getByText('2 actions').waitFor();
    await card.getByRole('button', { name: 'Run' }).click();
    await waitForValue(async () => (await power()) === 'on', 15_000, 'the light on');
    await card.getByText(/Last run .*: finished/).waitFor();
    const [scene] = (await open('GET', `${OPEN}?kind=scene`)).data.definitions;
    assert.deepEqual(scene.actions, [
      { type: 'device', device: light.serial_number, state: { power: { powerState: 'on' } } },
      { type: 'device', device: light.serial_number, state: { brightness: { brightness: 60 } } },
    ]);
    const [trace] = (await open('GET', `${OPEN}/${scene.id}/traces`)).data.traces;
    assert.match(trace.trigger.description, /^run by the console \(session [0-9a-f]+\)$/);
  });

  test('2. an automation made on the phone: when the sensor detects motion, if in a time window, then the light on, wait, off', async () => {
    await phone.goto('/#/scenes/new-automation');
    await phone.getByLabel('Name').fill('Hall light on motion');
    await phone.getByRole('button', { name: 'Add a trigger' }).click();
    const when = row(phone, 'triggers.0');
    await when.getByLabel('When').selectOption({ label: 'A device value changes' });
    await when.getByLabel('Device').selectOption({ label: 'Hall motion' });
    // Only the sensor's own values are offered, and of motion only its two values, in its words.
    assert.deepEqual(await when.getByLabel('Value').locator('option').allTextContents(), ['Motion']);
    assert.deepEqual(await when.getByLabel('Becomes').locator('option').allTextContents(), ['Detected', 'Clear']);
    await when.getByLabel('Becomes').selectOption({ label: 'Detected' });
    await phone.getByRole('button', { name: 'Add a condition' }).click();
    const cond = row(phone, 'conditions.0');
    await cond.getByLabel('If').selectOption({ label: 'A time window' });
    await cond.getByLabel('After').fill('00:00');
    await cond.getByLabel('Before').fill('23:59');
    await phone.getByRole('button', { name: 'Add an action' }).click();
    const on = row(phone, 'actions.0');
    await on.getByLabel('Device').selectOption({ label: light.name });
    await on.getByLabel('Set').selectOption({ label: 'Power' });
    await on.getByLabel('Power').selectOption({ label: 'On' });
    await phone.getByRole('button', { name: 'Add an action' }).click();
    const wait = row(phone, 'actions.1');
    await wait.getByLabel('Then').selectOption({ label: 'Wait a while' });
    await wait.getByLabel('For', { exact: true }).fill('3');
    await wait.getByLabel('For: unit').selectOption({ label: 's' });
    await phone.getByRole('button', { name: 'Add an action' }).click();
    const off = row(phone, 'actions.2');
    await off.getByLabel('Device').selectOption({ label: light.name });
    await off.getByLabel('Set').selectOption({ label: 'Power' });
    await off.getByLabel('Power').selectOption({ label: 'Off' });
    await shoot(phone, 'automation-editor');
    await phone.getByRole('button', { name: 'Save' }).click();
    await phone.getByText('Hall light on motion saved.').waitFor();

    const [auto] = (await open('GET', `${OPEN}?kind=automation`)).data.definitions;
    assert.deepEqual(auto.triggers, [
      { type: 'state', device: motion, capability: 'motion', field: 'motion', to: true },
    ]);
    assert.deepEqual(auto.conditions, [{ type: 'time', after: '00:00', before: '23:59' }]);
    assert.deepEqual(
      auto.actions.map((a: { type: string }) => a.type),
      ['device', 'delay', 'device'],
    );
    assert.equal(auto.actions[1].seconds, 3);

    // The sensor sees motion: the light goes on, and three seconds later off.
    await open('PUT', `devices/${light.serial_number}`, { state: { power: { powerState: 'off' } } });
    const seen = await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { motion: { motion: true } } },
      { endpoint: { serial_number: motion, third_serial_number: 'hall-motion' } },
    );
    assert.equal(seen.json.header.name, 'Response', seen.text);
    await waitForValue(async () => (await power()) === 'on', 15_000, 'the light on');
    await phone.getByText('Running now').waitFor();
    await waitForValue(async () => (await power()) === 'off', 15_000, 'the light off again');
    await phone.getByText(/Last run .*: finished/).waitFor();
    const traces = phone.locator('section.traces details.trace');
    await traces.first().locator('summary').click();
    await traces
      .first()
      .getByText(/Hall motion motion changed from false to true/)
      .waitFor();
    // Each action in words: on, the wait begun and done, off.
    const steps = traces.first().locator('ol.steps li');
    await steps.nth(3).getByText(`${light.name}: Power off: done`).waitFor();
    assert.equal(await steps.count(), 4);
    // A wait that ended on time on a running gateway says nothing of being late.
    assert.match((await steps.nth(2).textContent()) ?? '', /Wait 3 s: done$/);
    await shoot(phone, 'automation-traces');
  });

  test('3. a value out of the light’s range is stopped by the field; a device gone while editing is refused by the gateway, the message under its row; nothing is saved', async () => {
    await desk.goto('/#/scenes/new-scene');
    await desk.getByLabel('Name').fill('Too bright');
    await desk.getByRole('button', { name: 'Add an action' }).click();
    const action = row(desk, 'actions.0');
    await action.getByLabel('Device').selectOption({ label: light.name });
    await action.getByLabel('Set').selectOption({ label: 'Brightness' });
    const brightness = action.getByLabel('Brightness (%)');
    await brightness.fill('101');
    await desk.getByRole('button', { name: 'Save' }).click();
    // The field carries the light's own range: the browser says so and sends nothing.
    assert.notEqual(
      await brightness.evaluate((i) => (i as unknown as { validationMessage: string }).validationMessage),
      '',
    );
    await desk.getByRole('heading', { name: 'New scene' }).waitFor();

    // A sensor chosen in a wait, then removed before the save: only the gateway can know.
    const porch = endpoint('porch-motion', 'http://127.0.0.1:9/', {
      name: 'Porch motion',
      display_category: 'motionSensor',
      capabilities: [{ capability: 'motion', permission: '0100' }],
      state: { motion: { motion: false } },
    });
    const added = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [porch] });
    const serial: string = added.json.payload.endpoints[0].serial_number;
    await brightness.fill('100');
    await desk.getByRole('button', { name: 'Add an action' }).click();
    const wait = row(desk, 'actions.1');
    await wait.getByLabel('Then').selectOption({ label: 'Wait until a device value' });
    await wait.getByLabel('Device').selectOption({ label: 'Porch motion' });
    assert.equal((await open('DELETE', `devices/${serial}`)).error, 0);
    await desk.getByRole('button', { name: 'Save' }).click();
    await wait.getByText(`Device: the device chosen ("${serial}") is gone: choose another`).waitFor();
    await desk.getByText('Not saved: see the problems shown.').waitFor();
    await shoot(desk, 'scene-refused');
    const names = (await open('GET', OPEN)).data.definitions.map((d: { name: string }) => d.name);
    assert.ok(!names.includes('Too bright'));
  });

  test('4. a trigger that does not run says which condition did not hold; the switch turns the automation off', async () => {
    const [auto] = (await open('GET', `${OPEN}?kind=automation`)).data.definitions;
    // A window that never holds: the next motion is not run, and its trace says why.
    const read = (await open('GET', `${OPEN}/${auto.id}`)).data.definition;
    const saved = await open('PUT', `${OPEN}/${auto.id}`, {
      ...read,
      conditions: [{ type: 'time', after: '03:00', before: '03:00:01' }],
    });
    assert.equal(saved.error, 0, JSON.stringify(saved));
    for (const v of [false, true])
      await sendEvent(
        g,
        token,
        'DeviceStatesChangeReport',
        { state: { motion: { motion: v } } },
        { endpoint: { serial_number: motion, third_serial_number: 'hall-motion' } },
      );
    await desk.goto(`/#/scenes/${auto.id}`);
    await desk.getByRole('button', { name: 'Not run' }).click();
    const trace = desk.locator('section.traces details.trace').first();
    await trace.getByText('Not run').waitFor();
    await trace.locator('summary').click();
    await trace.getByText('condition conditions.0 (time) did not hold').waitFor();
    await trace.locator('ul.checks li.bad').waitFor();
    await shoot(desk, 'automation-not-run');

    await desk.getByRole('link', { name: '‹ Scenes and automations' }).click();
    const card = desk.locator('article.scene', { hasText: 'Hall light on motion' });
    await card.getByRole('switch', { name: 'Enabled' }).click();
    await card.getByRole('switch', { name: 'Enabled' }).and(desk.locator('[aria-checked="false"]')).waitFor();
    assert.equal((await open('GET', `${OPEN}/${auto.id}`)).data.definition.enabled, false);
    await card.getByRole('switch', { name: 'Enabled' }).click();
    await card.getByRole('switch', { name: 'Enabled' }).and(desk.locator('[aria-checked="true"]')).waitFor();
    await shoot(desk, 'scenes');
    await phone.goto('/#/scenes');
    await phone.locator('article.scene', { hasText: 'Hall light on motion' }).waitFor();
    await shoot(phone, 'scenes');
  });

  test('5. the sensor removed: the automation is broken, on its card and its page, and cannot be run', async () => {
    const removed = await open('DELETE', `devices/${motion}`);
    assert.equal(removed.error, 0, JSON.stringify(removed));
    await desk.goto('/#/scenes');
    const card = desk.locator('article.scene', { hasText: 'Hall light on motion' });
    await card.locator('.badge.bad', { hasText: 'Broken' }).waitFor();
    await card.getByText(`triggers.0.device: no device has serial_number "${motion}"`).waitFor();
    assert.equal(await card.getByRole('button', { name: 'Run' }).isDisabled(), true);
    await card.getByRole('link', { name: 'Open' }).click();
    await desk
      .getByRole('alert')
      .getByText(/Broken:/)
      .waitFor();
    await shoot(desk, 'automation-broken');
  });

  test('6. a time trigger on weekdays, made on the phone: its next firings are listed at that time, on weekdays only', async () => {
    await phone.goto('/#/scenes/new-automation');
    await phone.getByLabel('Name').fill('Weekday mornings');
    await phone.getByRole('button', { name: 'Add a trigger' }).click();
    const when = row(phone, 'triggers.0');
    await when.getByLabel('When').selectOption({ label: 'A time of day' });
    await when.getByLabel('At', { exact: true }).fill('07:15');
    for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri']) await when.getByLabel(day, { exact: true }).check();
    await phone.getByRole('button', { name: 'Add an action' }).click();
    const act = row(phone, 'actions.0');
    await act.getByLabel('Then').selectOption({ label: 'Send a notification' });
    await act.getByLabel('Message').fill('Good morning');
    await phone.getByRole('button', { name: 'Save' }).click();
    await phone.getByText('Weekday mornings saved.').waitFor();
    const saved = (await open('GET', OPEN)).data.definitions.find(
      (d: { name: string }) => d.name === 'Weekday mornings',
    );
    assert.deepEqual(saved.triggers, [{ type: 'time', at: '07:15', weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] }]);
    const firings = phone.locator('ul.firings li');
    await firings.nth(4).waitFor();
    for (const text of await firings.allTextContents())
      assert.match(text, /^(Mon|Tue|Wed|Thu|Fri) \d{4}-\d{2}-\d{2} 07:15 \(UTC[+-]\d{2}:\d{2}\) At 07:15 on weekdays$/);
    await shoot(phone, 'automation-next-firings');
  });
});
