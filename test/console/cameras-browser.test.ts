/**
 * Cameras in the console, in a real browser against a real gateway process with no Zigbee network:
 * the Devices page offers no pairing (nothing pairs here) but adding a camera; a wrong address of
 * an ESP32-CAM stand-in is explained in words, the right one adds it, and its page shows the
 * snapshot and the live view, at desktop and phone width.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type Esp32StandIn, makeJpegs, startEsp32 } from '../camera/servers.ts';
import { waitForValue } from '../helpers/foundation.ts';
import { shoot } from './browser.ts';
import { type Consoles, startConsoles } from './rig.ts';

const PASSWORD = 'a camera console password';
const NAME = 'Porch camera';

/** The width in pixels of the picture the page shows (0 until it has loaded one). */
async function pictureWidth(page: Page, alt: string): Promise<number> {
  const img = page.getByRole('img', { name: alt });
  await img.waitFor();
  // Polled from here: the console's CSP forbids the string evaluation waitForFunction would need.
  return waitForValue(
    async () => {
      const width = await img.evaluate((i) => {
        const el = i as unknown as { complete: boolean; naturalWidth: number };
        return el.complete ? el.naturalWidth : 0;
      });
      return width > 0 ? width : undefined;
    },
    15_000,
    `the picture "${alt}"`,
  );
}

describe('cameras in the console, in a browser, on a gateway without Zigbee', () => {
  let consoles: Consoles;
  let esp: Esp32StandIn;
  let desk: Page;
  let phone: Page;

  before(async () => {
    esp = await startEsp32(makeJpegs(320, 240, 3));
    consoles = await startConsoles(PASSWORD, { zigbeeMode: 'off' });
    ({ desk, phone } = consoles);
  });

  after(async () => {
    await consoles?.close();
    await esp?.close();
  });

  test('with zigbee.mode off the Devices page has no pairing button, only adding a camera', async () => {
    for (const page of [desk, phone]) {
      await page.getByText('No devices yet. Add a camera, or connect a Zigbee network').waitFor();
      await page.getByRole('button', { name: 'Add camera' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Pair Zigbee devices' }).count(), 0);
      await shoot(page, 'devices-no-zigbee');
    }
  });

  test('a wrong address is explained in words; the right one adds the camera, which the other console shows', async () => {
    for (const page of [desk, phone]) {
      await page.getByRole('button', { name: 'Add camera' }).click();
      const form = page.locator('form', { has: page.getByRole('heading', { name: 'Add a camera' }) });
      await form.getByLabel('Name').fill(NAME);
      await form.getByLabel('Kind').selectOption('ESP32-CAM');
      await form.getByLabel('Stream address').fill(`${esp.base}/nothing`);
      await form.getByRole('button', { name: 'Add camera' }).click();
      await form
        .getByRole('alert')
        .filter({ hasText: 'The board answered, but not with a picture at that path (try /stream or /capture).' })
        .waitFor();
      await shoot(page, 'add-camera-error');
    }
    await phone.getByRole('button', { name: 'Cancel' }).click();
    const form = desk.locator('form', { has: desk.getByRole('heading', { name: 'Add a camera' }) });
    await form.getByLabel('Stream address').fill(`${esp.base}/stream`);
    await form.getByRole('button', { name: 'Add camera' }).click();
    await desk.getByText(`Camera ${NAME} added.`).waitFor();
    await form.waitFor({ state: 'detached' });
    await phone.locator('article.device a.name', { hasText: NAME }).waitFor();
  });

  test("the camera's page shows its snapshot and its live view at both widths", async () => {
    const serial = await desk.locator('article.device', { hasText: NAME }).getAttribute('data-serial');
    assert.ok(serial);
    for (const page of [desk, phone]) {
      await page.goto(`/#/devices/${encodeURIComponent(serial)}`);
      await page.getByRole('heading', { name: NAME }).waitFor();
      assert.equal(await pictureWidth(page, `Snapshot of ${NAME}`), 320, "the snapshot is the board's picture");
      await shoot(page, 'camera');
      await page.getByRole('button', { name: 'Live view' }).click();
      assert.equal(await pictureWidth(page, `Live view of ${NAME}`), 320, 'the live view shows frames');
      await shoot(page, 'camera-live');
    }
    // Both consoles watch through one connection to the board; it closes when they stop.
    assert.equal(esp.streamsOpen(), 1);
    for (const page of [desk, phone]) await page.getByRole('button', { name: 'Stop live view' }).click();
    await desk.getByRole('img', { name: `Snapshot of ${NAME}` }).waitFor();
  });

  test("the camera's stream is edited in a form, and its password is never shown back", async () => {
    const secret = 'board-s3cret';
    // The board now asks for an account: the form gives it, probed before it is kept.
    esp.account = { username: 'admin', password: secret };
    const stream = desk.locator('form.stream-form');
    await stream.getByLabel('Stream address').fill(`${esp.base}/capture`);
    await stream.getByLabel('User name').fill('admin');
    await stream.getByLabel('Password').fill('not the password');
    await stream.getByRole('button', { name: 'Save stream' }).click();
    await stream
      .getByRole('alert')
      .filter({ hasText: 'The camera refused the user name or password in the address.' })
      .waitFor();
    await stream.getByLabel('Password').fill(secret);
    await stream.getByRole('button', { name: 'Save stream' }).click();
    const saved = desk.locator('.toast').filter({ hasText: `${NAME}: stream saved.` });
    await saved.waitFor();
    // Put away, so that the next save's toast is seen to come anew.
    await saved.getByRole('button', { name: 'Dismiss' }).click();
    await saved.waitFor({ state: 'detached' });
    assert.equal(await stream.getByLabel('Password').inputValue(), '', 'the field is empty again');
    assert.equal(await stream.getByLabel('Password').getAttribute('placeholder'), 'unchanged (leave empty to keep it)');
    // Moved to the board's stream, the password left empty: the camera keeps its own.
    await stream.getByLabel('Stream address').fill(`${esp.base}/stream`);
    await stream.getByRole('button', { name: 'Save stream' }).click();
    await desk.getByText(`${NAME}: stream saved.`).waitFor();
    await phone.reload();
    await phone.locator('form.stream-form').getByLabel('Stream address').waitFor();
    assert.equal(
      await phone.locator('form.stream-form').getByLabel('Stream address').inputValue(),
      `${esp.base}/stream`,
    );
    for (const page of [desk, phone]) {
      assert.equal((await page.content()).includes(secret), false, 'not in the page');
      await shoot(page, 'camera-stream');
    }
  });
});
