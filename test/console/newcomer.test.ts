/**
 * The console as a newcomer meets it (issue 23, section 4), in Chromium against a real gateway
 * process with the simulated network: a device opened from far down the list on a phone starts
 * at the top; device pages speak with units and one spelling, and keep the radio off the cards;
 * tags are a form; each security mode says which sensors set it off; a restore says before and
 * after that the password becomes the backup's. Pages are photographed at both widths.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { call, rest } from '../helpers/foundation.ts';
import { logIn, openConsole, PHONE, shoot } from './browser.ts';
import { consoleClient } from './client.ts';
import { type Consoles, type GatewayProcess, startConsoles } from './rig.ts';

const PASSWORD = 'a newcomer password';

/** How far the page is scrolled (evaluated in the page: the tests have no DOM types). */
const scrolled = (page: Page) => page.evaluate('window.scrollY') as Promise<number>;
const toBottom = (page: Page) => page.evaluate('window.scrollTo(0, document.body.scrollHeight)');

interface Listed {
  serial_number: string;
  name: string;
  display_category: string;
  model: string;
  capabilities: { capability: string; name?: string }[];
  tags: Record<string, unknown>;
}

describe('the console as a newcomer meets it', () => {
  let consoles: Consoles;
  let g: GatewayProcess;
  let browser: Browser;
  let desk: Page;
  let phone: Page;
  let devices: Listed[];
  let token: string;
  const find = (model: string) => {
    const d = devices.find((x) => x.model === model);
    assert.ok(d, `the simulated ${model}`);
    return d;
  };

  before(async () => {
    consoles = await startConsoles(PASSWORD);
    ({ g, browser, desk, phone } = consoles);
    const web = consoleClient(g.url);
    await web.login(PASSWORD);
    await web.call('POST', '/link/press');
    token = (await call(g.url, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=newcomer`)).json.data.token;
    devices = (await call(g.url, 'GET', rest('v2', 'devices'), { token })).json.data.device_list;
  });

  after(() => consoles?.close());

  test('a device opened from the bottom of the list on a phone starts at the top of its page', async () => {
    await phone.goto('/#/devices');
    const last = phone.locator('article.device').last();
    await last.waitFor();
    await toBottom(phone);
    assert.ok((await scrolled(phone)) > 1000, 'the list is scrolled far down');
    const name = (await last.locator('a.name').textContent()) as string;
    await last.locator('a.name').click();
    await phone.getByRole('heading', { name }).waitFor();
    assert.equal(await scrolled(phone), 0, 'the device page starts at its top');
    assert.ok(await phone.getByRole('heading', { name }).isVisible());
    // And back to the list: a new page again, at its top.
    await toBottom(phone);
    await phone.getByRole('link', { name: '← Devices' }).click();
    await phone.locator('article.device').first().waitFor();
    assert.equal(await scrolled(phone), 0);
  });

  test("cards leave the radio's link quality to the device page; pages give units, one spelling, no channel on a plug", async () => {
    await desk.goto('/#/devices');
    await desk.locator('article.device').first().waitFor();
    assert.equal(await desk.locator('article.device', { hasText: 'Link quality' }).count(), 0);
    assert.doesNotMatch((await desk.locator('main').textContent()) as string, /\bColor\b/);

    const light = find('9290012573A');
    await desk.goto(`/#/devices/${light.serial_number}`);
    await desk.getByRole('heading', { name: light.name }).waitFor();
    const ct = desk.locator('.control.range', { hasText: 'Colour temperature' });
    await ct.locator('output', { hasText: /^\d+ %$/ }).waitFor();
    assert.equal(await ct.locator('.ends').textContent(), 'WarmCool');
    const text = (await desk.locator('main').textContent()) as string;
    assert.doesNotMatch(text, /\bColor\b/, 'one spelling: Colour');
    assert.match(text, /Link quality/, 'on the device page');
    // Every event, those loaded with the page too, with its time.
    const events = desk.locator('ol.events li');
    await events.first().waitFor();
    assert.equal(await events.count(), await desk.locator('ol.events li time').count());
    await events
      .filter({ hasText: /Colour temperature: \d+ %/ })
      .first()
      .waitFor();
    await shoot(desk, 'device-light');

    const thermostat = find('SPZB0001');
    await desk.goto(`/#/devices/${thermostat.serial_number}`);
    await desk.getByRole('heading', { name: thermostat.name }).waitFor();
    const words = (await desk.locator('main').textContent()) as string;
    assert.match(words, /Thermostat mode/);
    assert.doesNotMatch(words, /Thermostat: Thermostat/);
    assert.match(words, /Temperature range \(manual mode\)5–30 °C/, 'settings in words, with their unit');
    assert.doesNotMatch(words, /[{[]"/, 'no JSON');
    await shoot(desk, 'device-thermostat');

    const plug = find('ZNCZ02LM');
    for (const page of [desk, phone]) {
      await page.goto(`/#/devices/${plug.serial_number}`);
      await page.getByRole('heading', { name: plug.name }).waitFor();
      assert.doesNotMatch((await page.locator('main').textContent()) as string, /channel 1|\(1\)/i);
    }
    await shoot(phone, 'device-plug');
  });

  test("tags are a form: channel names and tags are edited, an app's structured tag is kept as it was", async () => {
    const gang = find('QBKG24LM');
    // An add-on's routing tag: a structure the form shows in words and sends back untouched.
    const route = { hub: 'garage', hops: [1, 2] };
    const put = await call(g.url, 'PUT', rest('v2', `devices/${gang.serial_number}`), {
      token,
      body: { tags: { ...gang.tags, route } },
    });
    assert.equal(put.json.error, 0, put.text);
    for (const page of [desk, phone]) {
      await page.goto(`/#/devices/${gang.serial_number}`);
      await page.getByRole('heading', { name: gang.name }).waitFor();
      assert.equal(await page.locator('textarea').count(), 0, 'no JSON to type');
      await page.locator('.tag-row .kept', { hasText: 'hub: garage, hops: …' }).waitFor();
    }
    await desk.getByLabel('Channel 1').fill('Window side');
    await desk.getByRole('button', { name: 'Add a tag' }).click();
    await desk.getByLabel('Tag 2 name').fill('room');
    await desk.getByLabel('Tag 2 value').fill('kitchen');
    await desk.getByRole('button', { name: 'Save tags' }).click();
    await desk.getByText('Tags saved.').waitFor();
    const stored = (await call(g.url, 'GET', rest('v2', 'devices'), { token })).json.data.device_list.find(
      (d: Listed) => d.serial_number === gang.serial_number,
    );
    assert.deepEqual(stored.tags, { toggle: { '1': 'Window side', '2': 'right' }, route, room: 'kitchen' });
    // The other console follows, and the switch is named by its new label.
    await phone.getByRole('switch', { name: 'Window side' }).waitFor();
    await shoot(desk, 'device-tags');
    await shoot(phone, 'device-tags');
    // A tag without a name is refused in words before anything is sent.
    await desk.getByRole('button', { name: 'Add a tag' }).click();
    await desk.getByRole('button', { name: 'Save tags' }).click();
    await desk.getByRole('alert').filter({ hasText: 'Tag 3: give it a name' }).waitFor();
  });

  test('each security mode says which sensors set it off: Home and Sleep the doors, windows and tampers, Away the motion too', async () => {
    const door = find('MCCGQ11LM').name;
    const motion = find('RTCGQ11LM').name;
    for (const page of [desk, phone]) {
      await page.goto('/#/security');
      const home = page.locator('article.mode', { hasText: 'Home mode' });
      const away = page.locator('article.mode', { hasText: 'Away mode' });
      await home.locator('.watching li', { hasText: door }).waitFor();
      assert.match((await home.locator('.watching').textContent()) as string, /door or window/);
      assert.equal(await home.locator('.watching li', { hasText: motion }).count(), 0, 'no indoor motion in Home');
      await away.locator('.watching li', { hasText: motion }).waitFor();
      await shoot(page, 'security-modes');
    }
    // Home mode given the motion sensor too, in its form: the card says so at once.
    const home = desk.locator('article.mode', { hasText: 'Home mode' });
    await home.getByRole('button', { name: 'Settings' }).click();
    await home.getByRole('checkbox', { name: 'Motion', exact: true }).check();
    await home.getByRole('button', { name: 'Save settings' }).click();
    await desk.getByText('Mode settings saved.').waitFor();
    await home.locator('.watching li', { hasText: motion }).waitFor();
    const config = await call(g.url, 'GET', rest('v2', 'security/1/config'), { token });
    assert.equal(config.json.data.devices, 'all', 'every kind chosen is every sensor');
  });

  test("a restore says that the password becomes the backup's, before (in the confirmation) and after (on the login page)", async () => {
    const web = consoleClient(g.url);
    await web.login(PASSWORD);
    const res = await fetch(`${g.url}/console/api/backup`, { headers: { cookie: `opencube_session=${web.cookie}` } });
    assert.equal(res.status, 200);
    const file = join(g.dataDir, 'console-backup.db');
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    // Changed since the backup (which ends every session): after the restore, the backup's password works.
    assert.equal(
      (await web.call('PUT', '/auth/password', { current: PASSWORD, password: 'a newer password' })).status,
      200,
    );
    await desk.goto('/');
    await logIn(desk, 'a newer password');
    await desk.goto('/#/gateway');
    await desk.getByLabel('Backup file').setInputFiles(file);
    let warning = '';
    desk.once('dialog', (d) => {
      warning = d.message();
      void d.accept();
    });
    await desk.getByRole('button', { name: 'Restore' }).click();
    await desk.locator('.login').getByText('This gateway was restored from a backup').waitFor({ timeout: 60_000 });
    assert.match(warning, /The console's password and sessions become the backup's: you log in with the password/);
    await shoot(desk, 'login-restored');
    // Another person's phone (this phone's session is in the backup: it is logged in again).
    const other = (await openConsole(browser, g.url, PHONE)).page;
    await other
      .locator('.login')
      .getByText('Its console password is now the one it had when that backup was made.')
      .waitFor();
    await shoot(other, 'login-restored');
    await other.context().close();
    await logIn(desk, PASSWORD);
  });
});
