/**
 * The console's header in a real browser against a real gateway process with the simulated
 * Zigbee network (so all eight pages exist): one line on a phone and on a desktop (a long gateway
 * name included), the row of links down to 1100 px and the Menu below, every page reachable
 * through the phone's Menu at its own address, the Menu by keyboard (Enter, the arrows, Escape,
 * Tab) and by a tap beside it, and Log out from it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DESKTOP, headerLine, shoot } from './browser.ts';
import { type Consoles, startConsoles } from './rig.ts';

const PASSWORD = 'a navigation password';

/** The pages in the header's order, each with its address and the heading it shows. */
const PAGES = [
  { label: 'Devices', to: 'devices', heading: 'Devices' },
  { label: 'Scenes', to: 'scenes', heading: 'Scenes and automations' },
  { label: 'Zigbee', to: 'zigbee', heading: 'Zigbee' },
  { label: 'Security', to: 'security', heading: 'Security' },
  { label: 'Logbook', to: 'logbook', heading: 'Logbook' },
  { label: 'Energy', to: 'energy', heading: 'Energy' },
  { label: 'Dashboard', to: 'dashboard', heading: 'Dashboard' },
  { label: 'Gateway', to: 'gateway', heading: 'Gateway' },
];

async function assertOneLine(page: Page, where: string): Promise<void> {
  const line = await headerLine(page);
  assert.ok(line.oneLine, `${where}: the header is one line (${line.height} px): ${line.items.join(', ')}`);
}

/** What has the keyboard's focus: its text, or its aria-label. */
const FOCUSED =
  "(document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '').trim()";

/** Waits until `name` has the keyboard's focus (a key's effect shows after the page renders); says what has it otherwise. */
async function focusOn(page: Page, name: string, why = ''): Promise<void> {
  try {
    await page.waitForFunction(`${FOCUSED} === ${JSON.stringify(name)}`, undefined, { timeout: 5000 });
  } catch {
    assert.fail(`${why || 'focus'}: expected on ${name}, is on ${await page.evaluate(FOCUSED)}`);
  }
}

describe("the console's header on a phone and on a desktop", () => {
  let consoles: Consoles;
  let desk: Page;
  let phone: Page;

  before(async () => {
    consoles = await startConsoles(PASSWORD, { simDevices: 6 });
    ({ desk, phone } = consoles);
  });

  after(async () => {
    await consoles?.close();
  });

  test('on a desktop every page is a link in one line, each at its own address', async () => {
    const nav = desk.getByRole('navigation', { name: 'Pages' });
    assert.deepEqual(
      await nav.getByRole('link').allInnerTexts(),
      PAGES.map((p) => p.label),
    );
    assert.equal(await desk.getByRole('button', { name: 'Menu' }).isVisible(), false, 'no Menu on a desktop');
    await desk.getByRole('button', { name: 'Log out' }).waitFor();
    for (const p of PAGES) {
      await nav.getByRole('link', { name: p.label, exact: true }).click();
      await desk.getByRole('heading', { level: 1, name: p.heading, exact: true }).waitFor();
      assert.equal(new URL(desk.url()).hash, `#/${p.to}`);
      assert.equal(await nav.locator('[aria-current="page"]').textContent(), p.label);
      await assertOneLine(desk, `desktop, ${p.label}`);
    }
  });

  test('the row of links holds down to 1100 px wide; narrower, the Menu takes its place', async () => {
    const nav = desk.getByRole('navigation', { name: 'Pages' });
    const menu = desk.getByRole('button', { name: 'Menu' });
    try {
      await desk.setViewportSize({ width: 1100, height: 800 });
      await assertOneLine(desk, '1100 px');
      assert.equal(await menu.isVisible(), false);
      assert.equal(await nav.getByRole('link').count(), PAGES.length);
      const brand = await desk.evaluate(
        "(() => { const b = document.querySelector('.top .brand'); return b.scrollWidth <= b.clientWidth; })()",
      );
      assert.ok(brand, "the gateway's name is whole beside the eight links");
      await desk.setViewportSize({ width: 1099, height: 800 });
      await menu.waitFor();
      await nav.waitFor({ state: 'hidden' });
      await assertOneLine(desk, '1099 px');
    } finally {
      await desk.setViewportSize(DESKTOP);
    }
  });

  test("on a phone the header is one line with the gateway's name, the page shown and the live state; the Menu reaches every page", async () => {
    const menu = phone.getByRole('button', { name: 'Menu' });
    const nav = phone.getByRole('navigation', { name: 'Pages' });
    await phone.locator('.top .live.live').waitFor();
    await assertOneLine(phone, 'phone');
    assert.equal(await phone.locator('.top .brand').textContent(), 'opencube');
    assert.equal(await nav.isVisible(), false, 'the pages are hidden until the Menu opens');
    await phone.getByRole('button', { name: 'Menu', expanded: false }).waitFor();
    for (const p of PAGES) {
      await menu.click();
      await phone.getByRole('button', { name: 'Menu', expanded: true }).waitFor();
      assert.deepEqual(
        await nav.getByRole('link').allInnerTexts(),
        PAGES.map((q) => q.label),
      );
      if (p.to === 'zigbee') await shoot(phone, 'menu', false);
      await nav.getByRole('link', { name: p.label, exact: true }).click();
      await phone.getByRole('heading', { level: 1, name: p.heading, exact: true }).waitFor();
      assert.equal(new URL(phone.url()).hash, `#/${p.to}`);
      // Chosen, the page closes the menu, its name shows in the header, and focus is back on the Menu.
      await nav.waitFor({ state: 'hidden' });
      await phone.getByRole('button', { name: 'Menu', expanded: false }).waitFor();
      assert.equal(await phone.locator('.top .here').textContent(), p.label);
      await focusOn(phone, 'Menu');
      await assertOneLine(phone, `phone, ${p.label}`);
    }
    // A device's page belongs to Devices.
    await phone.goto('/#/devices');
    await phone.locator('article.device a.name').first().click();
    await phone.locator('.device-page').waitFor();
    assert.equal(await phone.locator('.top .here').textContent(), 'Devices');
    await assertOneLine(phone, "phone, a device's page");
  });

  test('the Menu works by keyboard: Enter opens it on the page shown, the arrows move, Escape closes it, Enter on a page goes there', async () => {
    // Loaded afresh, so Tab starts from the top of the page.
    await phone.goto('/#/security');
    await phone.reload();
    await phone.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    const nav = phone.getByRole('navigation', { name: 'Pages' });
    await phone.keyboard.press('Tab');
    await focusOn(phone, 'Menu', 'the Menu is the first thing Tab reaches');
    await phone.keyboard.press('Enter');
    await phone.getByRole('button', { name: 'Menu', expanded: true }).waitFor();
    await focusOn(phone, 'Security', 'focus goes to the page shown');
    await phone.keyboard.press('ArrowDown');
    await focusOn(phone, 'Logbook');
    await phone.keyboard.press('ArrowUp');
    await phone.keyboard.press('ArrowUp');
    await focusOn(phone, 'Zigbee');
    await phone.keyboard.press('End');
    await focusOn(phone, 'Log out');
    await phone.keyboard.press('ArrowDown');
    await focusOn(phone, 'Devices', 'the arrows go round');
    await phone.keyboard.press('Escape');
    await nav.waitFor({ state: 'hidden' });
    await phone.getByRole('button', { name: 'Menu', expanded: false }).waitFor();
    await focusOn(phone, 'Menu', 'Escape gives focus back to the Menu');
    assert.equal(new URL(phone.url()).hash, '#/security', 'Escape goes nowhere');

    await phone.keyboard.press('Space');
    await phone.getByRole('button', { name: 'Menu', expanded: true }).waitFor();
    await focusOn(phone, 'Security');
    await phone.keyboard.press('Home');
    await phone.keyboard.press('Tab');
    await focusOn(phone, 'Scenes', 'Tab moves in the list too');
    await phone.keyboard.press('Enter');
    await phone.getByRole('heading', { level: 1, name: 'Scenes and automations' }).waitFor();
    await nav.waitFor({ state: 'hidden' });
    await focusOn(phone, 'Menu');

    // Tab past Log out leaves the list: it closes.
    await phone.keyboard.press('Enter');
    await phone.keyboard.press('End');
    await phone.keyboard.press('Tab');
    await nav.waitFor({ state: 'hidden' });
    await phone.getByRole('button', { name: 'Menu', expanded: false }).waitFor();
  });

  test('a tap beside the open Menu closes it and changes nothing on the page under it', async () => {
    await phone.goto('/#/devices');
    const card = phone.locator('article.device').first();
    await card.waitFor();
    const before = await card.textContent();
    const menu = phone.getByRole('button', { name: 'Menu' });
    await menu.click();
    const nav = phone.getByRole('navigation', { name: 'Pages' });
    await nav.waitFor();
    const box = await card.boundingBox();
    assert.ok(box);
    // To the right of the list, over the first card.
    await phone.mouse.click(370, box.y + box.height / 2);
    await nav.waitFor({ state: 'hidden' });
    await phone.getByRole('button', { name: 'Menu', expanded: false }).waitFor();
    assert.equal(new URL(phone.url()).hash, '#/devices');
    assert.equal(await card.textContent(), before);
  });

  test("a long gateway name is cut short, and the header stays one line at both widths with the page's name in full", async () => {
    const name = 'The holiday cottage by the lake, upstairs';
    await desk.goto('/#/gateway');
    await desk.getByLabel('Gateway name').fill(name);
    await desk
      .locator('form', { has: desk.getByLabel('Gateway name') })
      .getByRole('button', { name: 'Save' })
      .click();
    await desk.getByText('Gateway name saved.').waitFor();
    // Another console reads the name when it loads.
    await phone.goto('/#/security');
    await phone.reload();
    await phone.locator('.top .brand', { hasText: name }).waitFor();
    for (const [page, where] of [
      [desk, 'desktop'],
      [phone, 'phone'],
    ] as const) {
      await page.locator('.top .brand', { hasText: name }).waitFor();
      await assertOneLine(page, `${where}, a long name`);
      const cut = await page.evaluate(
        "(() => { const b = document.querySelector('.top .brand'); return b.scrollWidth > b.clientWidth; })()",
      );
      assert.ok(cut, `${where}: the name is cut short (an ellipsis) rather than pushing the line apart`);
    }
    assert.equal(
      await phone.evaluate(
        "(() => { const h = document.querySelector('.top .here'); return h.scrollWidth <= h.clientWidth; })()",
      ),
      true,
      "the page's name shows in full beside it",
    );
  });

  test('Log out is in the Menu on a phone and ends the session', async () => {
    assert.equal(await phone.getByRole('button', { name: 'Log out' }).isVisible(), false, 'not in the row');
    await phone.getByRole('button', { name: 'Menu' }).click();
    await phone.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Log out' }).click();
    await phone.getByLabel('Password').waitFor();
    assert.equal((await phone.context().request.get(`${consoles.g.url}/console/api/devices`)).status(), 401);
  });
});
