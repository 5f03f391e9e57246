/**
 * The console in a real browser (Debian's Chromium through playwright-core) against a real
 * gateway process with the simulated Zigbee network: two consoles, one on a desktop and one on a
 * phone, approve an app, control a light, pair, rename and delete a device, and arm, trigger and
 * cancel an alarm. Each page is photographed at both widths (.tmp/console-screenshots).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { call, rest, waitForValue } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';
import { headerLine, shoot } from './browser.ts';
import { type Consoles, type GatewayProcess, startConsoles } from './rig.ts';

const PASSWORD = 'a console password';
const APP = 'Kitchen tablet';

describe('the console in a browser', () => {
  let consoles: Consoles;
  let g: GatewayProcess;
  let desk: Page;
  let phone: Page;
  let token: string;
  let openApi: EventStream | undefined;

  before(async () => {
    consoles = await startConsoles(PASSWORD);
    ({ g, desk, phone } = consoles);
  });

  after(async () => {
    openApi?.close();
    await consoles?.close();
  });

  test('1. an app polls G1: the pop-up shows on both consoles, one allows it, it closes on the other, and the next poll gets a working token', async () => {
    const poll = () => call(g.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=${encodeURIComponent(APP)}`);
    assert.equal((await poll()).json.message, 'link button not pressed');
    const onDesk = desk.getByRole('alertdialog').locator(`[data-app="${APP}"]`);
    const onPhone = phone.getByRole('alertdialog').locator(`[data-app="${APP}"]`);
    await onDesk.waitFor();
    await onPhone.waitFor();
    // The pop-up covers the screen, not the whole page: photographed as a person sees it.
    await shoot(desk, 'access-request', false);
    await shoot(phone, 'access-request', false);
    await onDesk.getByRole('button', { name: 'Allow' }).click();
    await onPhone.waitFor({ state: 'detached' });
    await phone.getByRole('alertdialog').waitFor({ state: 'detached' });
    const granted = await poll();
    assert.equal(granted.json.error, 0, granted.text);
    assert.equal(granted.json.data.app_name, APP);
    token = granted.json.data.token;
    assert.equal((await call(g.url, 'GET', rest('v2', 'bridge/runtime'), { token })).json.error, 0);
  });

  test('3. a light turned on and dimmed on one console changes on the other console and on an Open API stream', async () => {
    openApi = await openEvents(g.url, token);
    const list = (await call(g.url, 'GET', rest('v2', 'devices'), { token })).json.data.device_list as any[];
    const light = list.find(
      (d) =>
        d.display_category === 'light' &&
        d.capabilities.some((c: any) => c.capability === 'brightness') &&
        d.state?.power?.powerState === 'off',
    );
    assert.ok(light, 'the simulated network has a light that is off');
    await desk.goto(`/#/devices/${light.serial_number}`);
    await desk.getByRole('heading', { name: light.name }).waitFor();
    const phoneCard = phone.locator(`article.device[data-serial="${light.serial_number}"]`);
    await phoneCard.waitFor();
    await desk.getByRole('switch', { name: 'Power' }).click();
    await phoneCard.getByRole('switch', { name: 'Power' }).and(phone.locator('[aria-checked="true"]')).waitFor();
    await desk.getByRole('slider', { name: 'Brightness' }).fill('40');
    await phoneCard.locator('.control.range output').first().filter({ hasText: '40 %' }).waitFor();
    await openApi.waitFor(
      (e) =>
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === light.serial_number &&
        e.data.payload.power?.powerState === 'on',
    );
    await openApi.waitFor(
      (e) =>
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === light.serial_number &&
        e.data.payload.brightness?.brightness === 40,
    );
    await desk.getByText('Brightness set to 40').first().waitFor();
    // Photographed with its history's charts drawn, as a person sees the page a moment after opening it.
    await desk.locator('.chart canvas').first().waitFor();
    await shoot(desk, 'device');
    await phone.goto(`/#/devices/${light.serial_number}`);
    await phone.getByRole('heading', { name: light.name }).waitFor();
    await phone.locator('.chart canvas').first().waitFor();
    await shoot(phone, 'device');
    await phone.goto('/#/devices');
    await phoneCard.waitFor();
    await desk.goto('/#/devices');
    await desk.locator('article.device').first().waitFor();
    await shoot(desk, 'devices');
    await shoot(phone, 'devices');
  });

  test('4. a simulated device is paired (with a countdown), renamed and deleted, and the other console follows', async () => {
    const before = await desk
      .locator('article.device')
      .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-serial')));
    await desk.getByRole('button', { name: 'Pair Zigbee devices' }).click();
    await desk.getByText(/Joining open: \d+:\d\d left/).waitFor();
    await phone.getByText(/Joining open: \d+:\d\d left/).waitFor();
    await shoot(desk, 'pairing');
    await shoot(phone, 'pairing');
    const serial = await waitForValue(
      async () => {
        const now = await desk
          .locator('article.device')
          .evaluateAll((cards) => cards.map((c) => c.getAttribute('data-serial')));
        return now.find((s) => !before.includes(s)) ?? undefined;
      },
      30_000,
      'a newly joined device on the console',
    );
    await phone.locator(`article.device[data-serial="${serial}"]`).waitFor();
    await desk.locator('.pairing').getByRole('button', { name: 'Stop' }).click();
    await desk.getByRole('button', { name: 'Pair Zigbee devices' }).waitFor();

    await desk.goto(`/#/devices/${serial}`);
    await desk.getByRole('button', { name: 'Rename' }).click();
    await desk.getByLabel('New name').fill('Test lamp');
    await desk.getByRole('button', { name: 'Save', exact: true }).click();
    await desk.getByRole('heading', { name: 'Test lamp' }).waitFor();
    await phone.locator(`article.device[data-serial="${serial}"] a.name`, { hasText: 'Test lamp' }).waitFor();

    // The delete dialog asks about the history too (kept when its box is not ticked).
    await desk.getByRole('button', { name: 'Delete device' }).click();
    assert.equal(await desk.getByLabel(/Also delete its history/).isChecked(), false);
    await desk.getByRole('button', { name: 'Delete', exact: true }).click();
    await desk.getByText('Test lamp deleted; its history is kept.').waitFor();
    await desk.getByRole('heading', { name: 'Devices' }).waitFor();
    await phone.locator(`article.device[data-serial="${serial}"]`).waitFor({ state: 'detached' });
    assert.equal(await desk.locator(`article.device[data-serial="${serial}"]`).count(), 0);
  });

  test('5. a mode is armed, a third-party contact report sets the alarm off, both consoles show it, and it is cancelled', async () => {
    const third = endpoint('door-1', 'http://127.0.0.1:9/', {
      name: 'Back door',
      display_category: 'contactSensor',
      capabilities: [{ capability: 'contact', permission: '0100' }],
      state: { contact: { contact: false } },
    });
    const added = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [third] });
    assert.equal(added.json.header.name, 'Response', added.text);
    const door = added.json.payload.endpoints[0].serial_number as string;

    await desk.goto('/#/security');
    const home = desk.locator('article.mode', { hasText: 'Home mode' });
    await home.getByRole('button', { name: 'Settings' }).click();
    await home.getByLabel('Entry delay (s)').fill('0');
    await home.getByLabel('Exit delay (s)').fill('0');
    await home.getByRole('button', { name: 'Save settings' }).click();
    await desk.getByText('Mode settings saved.').waitFor();
    await home.getByRole('button', { name: 'Arm' }).click();
    await desk.getByRole('heading', { name: 'Armed', exact: true }).waitFor();
    await phone.goto('/#/security');
    await phone.getByRole('heading', { name: 'Armed', exact: true }).waitFor();

    const report = await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { contact: { contact: true } } },
      {
        endpoint: { serial_number: door, third_serial_number: 'door-1' },
      },
    );
    assert.equal(report.json.header.name, 'Response', report.text);
    await desk.getByRole('heading', { name: 'ALARM' }).waitFor();
    await desk.getByText('Set off by Back door (door or window)').waitFor();
    await phone.getByRole('heading', { name: 'ALARM' }).waitFor();
    await phone.locator('.top .badge.alarm').waitFor();
    // The badge sounds in the header's one line, at both widths.
    await desk.locator('.top .badge.alarm').waitFor();
    for (const page of [desk, phone]) {
      const line = await headerLine(page);
      assert.ok(line.oneLine, `the header with the alarm is one line (${line.height} px): ${line.items.join(', ')}`);
    }
    await shoot(desk, 'security-alarm');
    await shoot(phone, 'security-alarm');

    await phone.getByRole('button', { name: 'Cancel alarm' }).click();
    await desk.getByRole('heading', { name: 'Armed', exact: true }).waitFor();
    await phone.getByText('Alarm cancelled.').waitFor();
    await desk.locator('.top .badge.alarm').waitFor({ state: 'detached' });
    const status = await call(g.url, 'GET', rest('v2', 'security/alarm'), { token });
    assert.equal(status.json.data.alarm_state, 'normal', 'cancel_alarm ends the alarm: back to normal');
    await desk.getByRole('button', { name: 'Disarm' }).first().click();
    await desk.getByRole('heading', { name: 'Disarmed' }).waitFor();
  });

  test("6. an add-on's dashboard card shows as a frame of its page at both widths, opens its drawer, and is removed", async (t) => {
    // The add-on's pages, on their own server (another origin than the console's).
    const addOn = createServer((req, res) => {
      const which = req.url === '/drawer' ? 'Energy details' : 'Energy today: 4.2 kWh';
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><body style="font-family:sans-serif;margin:8px"><p id="what">${which}</p></body>`);
    });
    await new Promise<void>((ok) => addOn.listen(0, '127.0.0.1', ok));
    t.after(() => addOn.close());
    const base = `http://127.0.0.1:${(addOn.address() as AddressInfo).port}`;
    const card = await call(g.url, 'POST', rest('v2', 'ui/cards'), {
      token,
      body: {
        label: 'Energy',
        web_settings: {
          default: '2\u00d71',
          dimensions: [
            { size: '2\u00d71', src: `${base}/card` },
            { size: '1\u00d71', src: `${base}/card` },
          ],
          drawer_component: { src: `${base}/drawer` },
        },
      },
    });
    assert.equal(card.json.error, 0, card.text);
    for (const page of [desk, phone]) {
      await page.goto('/#/dashboard');
      const frame = page.frameLocator('article.ui-card iframe');
      await frame.getByText('Energy today: 4.2 kWh').waitFor();
      await shoot(page, 'dashboard');
    }
    const onDesk = desk.locator('article.ui-card', { hasText: 'Energy' });
    const box = await onDesk.boundingBox();
    assert.ok(box && box.width > box.height * 1.5, 'a 2×1 card is twice as wide as it is high');
    for (const page of [desk, phone]) {
      await page.locator('article.ui-card', { hasText: 'Energy' }).getByRole('button', { name: 'Open' }).click();
      await page.frameLocator('.drawer iframe').getByText('Energy details').waitFor();
      await shoot(page, 'dashboard-drawer', false);
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    }
    desk.once('dialog', (d) => void d.accept());
    await onDesk.getByRole('button', { name: 'Remove' }).click();
    await desk.getByText('No cards yet').waitFor();
    const left = await call(g.url, 'GET', rest('v2', 'ui/cards'), { token });
    assert.deepEqual(left.json.data, []);
  });

  test('the gateway page shows readings, the speaker, tokens, sessions and the Matter switch at both widths', async () => {
    for (const page of [desk, phone]) {
      await page.goto('/#/gateway');
      await page.getByRole('heading', { name: 'Speaker' }).waitFor();
      await page.getByRole('cell', { name: APP }).waitFor();
      // The Matter bridge is off here (it runs only inside test/matter's private network).
      await page.getByRole('button', { name: 'Turn on the Matter bridge' }).waitFor();
      await shoot(page, 'gateway');
    }
    await desk.getByRole('button', { name: 'Beep' }).click();
    await desk.getByText('Beep bootComplete.').waitFor();
    // A setting that changes at once: the gateway's name, in this console's header and in G-bridge.
    await desk.getByLabel('Gateway name').fill('Hall cube');
    await desk
      .locator('form', { has: desk.getByLabel('Gateway name') })
      .getByRole('button', { name: 'Save' })
      .click();
    await desk.getByText('Gateway name saved.').waitFor();
    await desk.locator('.top .brand', { hasText: 'Hall cube' }).waitFor();
    await desk.getByRole('heading', { name: 'Hall cube' }).waitFor();
    assert.equal((await call(g.url, 'GET', rest('v2', 'bridge'))).json.data.name, 'Hall cube');
    await desk.getByRole('switch', { name: 'Beep: Device discovered' }).click();
    await desk.getByText('Beep device discovered off.').waitFor();
    assert.equal(
      await desk.getByRole('switch', { name: 'Beep: Device discovered' }).getAttribute('aria-checked'),
      'false',
    );
  });
});
