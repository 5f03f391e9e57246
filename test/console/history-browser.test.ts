/**
 * The history in the console, in a real browser against a real gateway process with the simulated
 * Zigbee network, whose devices first got eight days of history (test/helpers/history-seed.ts):
 * a device's charts (lines, bars, ticks) over 24 h / 7 d / 30 d / 1 y, panned and zoomed; the
 * Energy page; the Logbook searched by device and kind; deleting a device with its history. Each
 * at desktop and phone width (screenshots in .tmp/console-screenshots, chosen ones in docs/console/).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { waitForValue } from '../helpers/foundation.ts';
import { seedHistory } from '../helpers/history-seed.ts';
import { goToPage, launch, openBothWidths, shoot } from './browser.ts';
import { consoleClient } from './client.ts';
import { buildConsole, type GatewayProcess, setPasswordCli, startGatewayProcess } from './rig.ts';

const PASSWORD = 'a history console password';

interface Dev {
  serial_number: string;
  name: string;
  state: Record<string, unknown>;
}

let g: GatewayProcess;
let browser: Browser;
let desk: Page;
let phone: Page;
let devices: Dev[];

/** The devices as the console's API lists them, once the simulated network has announced `n`. */
async function listDevices(url: string, n: number): Promise<Dev[]> {
  const c = consoleClient(url);
  await c.login(PASSWORD);
  return waitForValue(
    async () => {
      const r = await c.call('GET', '/devices');
      const list = (r.body.devices ?? []) as Dev[];
      return list.length >= n && list.every((d) => Object.keys(d.state ?? {}).length > 0) ? list : undefined;
    },
    60_000,
    `${n} simulated devices with their states`,
  );
}

const withCapability = (cap: string) => {
  const d = devices.find((x) => cap in x.state);
  assert.ok(d, `a simulated device with ${cap}: ${devices.map((x) => Object.keys(x.state).join('+')).join(', ')}`);
  return d;
};

/** The text of the window the charts show. */
const windowOf = async (page: Page) => (await page.locator('.history-tools .window').textContent()) ?? '';

before(async () => {
  buildConsole();
  // The first start only gets the simulated network's devices into the store: it records no
  // history, which then starts eight days back (history-seed.ts).
  const first = await startGatewayProcess({ simDevices: 16, args: ['--history-enabled', 'false'] });
  const set = await setPasswordCli(first.dataDir, PASSWORD);
  assert.equal(set.code, 0, set.out);
  devices = await listDevices(first.url, 16);
  await first.stop();
  await seedHistory(first.dataDir, 8);
  g = await startGatewayProcess({ dataDir: first.dataDir, port: first.port, simDevices: 16 });
  browser = await launch();
  ({ desk, phone } = await openBothWidths(browser, g.url, PASSWORD));
});

after(async () => {
  await browser?.close();
  await g?.dispose();
});

describe('the history in the console, in a browser', () => {
  test("a climate sensor's page charts its readings as lines over 24 h and 7 days, with the resolution said", async () => {
    const sensor = withCapability('temperature');
    for (const page of [desk, phone]) {
      await page.goto(`/#/devices/${encodeURIComponent(sensor.serial_number)}`);
      const chart = page.locator('.chart[data-capability="temperature"]');
      await chart.locator('canvas').waitFor();
      await chart
        .locator('.resolution')
        .filter({ hasText: /per \d+ min|values/ })
        .waitFor();
      await page.getByRole('button', { name: '7 d' }).click();
      await chart
        .locator('.resolution')
        .filter({ hasText: /per (15 min|30 min|\d+ h)/ })
        .waitFor();
      assert.equal(await page.getByRole('button', { name: '7 d' }).getAttribute('aria-pressed'), 'true');
      await chart.locator('.muted.nothing').waitFor({ state: 'detached' });
      await shoot(page, 'history-sensor');
    }
  });

  test('dragging across a chart zooms every chart in; the arrows pan, the range buttons go back to now', async () => {
    const sensor = withCapability('temperature');
    await desk.goto(`/#/devices/${encodeURIComponent(sensor.serial_number)}`);
    await desk.getByRole('button', { name: '7 d' }).click();
    const chart = desk.locator('.chart[data-capability="temperature"]');
    await chart
      .locator('.resolution')
      .filter({ hasText: /per (15 min|30 min|\d+ h)/ })
      .waitFor();
    // The figure stays while its plot is drawn again: scrolled into view by it.
    await chart.scrollIntoViewIfNeeded();
    const plot = chart.locator('.u-over');
    await plot.waitFor();
    const before = await windowOf(desk);
    const box = await plot.boundingBox();
    assert.ok(box);
    await desk.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
    await desk.mouse.down();
    await desk.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 5 });
    await desk.mouse.up();
    const zoomed = await waitForValue(
      async () => {
        const w = await windowOf(desk);
        return w !== before ? w : undefined;
      },
      10_000,
      'the zoomed window',
    );
    assert.equal(
      await desk.getByRole('button', { name: 'Later' }).isDisabled(),
      false,
      'a window in the past pans later',
    );
    await desk.getByRole('button', { name: 'Earlier' }).click();
    await waitForValue(async () => ((await windowOf(desk)) !== zoomed ? true : undefined), 10_000, 'panned');
    await desk.getByRole('button', { name: '24 h' }).click();
    assert.equal(await desk.getByRole('button', { name: 'Later' }).isDisabled(), true, 'back to now');
  });

  test('on/off and open/closed are bars over time, presses and motion ticks', async () => {
    const plug =
      devices.find((d) => 'power' in d.state && 'toggle-electric-power' in d.state) ?? withCapability('power');
    for (const page of [desk, phone]) {
      await page.goto(`/#/devices/${encodeURIComponent(plug.serial_number)}`);
      await page.locator('.chart[data-kind="state"] canvas').first().waitFor();
      await page.locator('.chart[data-kind="number"] canvas').first().waitFor();
      await shoot(page, 'history-plug');
    }
    const ticks = devices.find((d) => 'motion' in d.state || 'press' in d.state);
    if (ticks) {
      await desk.goto(`/#/devices/${encodeURIComponent(ticks.serial_number)}`);
      const kind = 'motion' in ticks.state ? 'motion' : 'press';
      await desk.locator(`.chart[data-capability="${kind}"] canvas`).waitFor();
    }
  });

  test('the Energy page shows kWh per hour of today, per day of the month and per month, with each device', async () => {
    for (const page of [desk, phone]) {
      await goToPage(page, 'Energy');
      await page.getByRole('heading', { name: 'Energy' }).waitFor();
      await page.locator('.energy-bars canvas').waitFor();
      await page.locator('.energy-bars[data-period="hour"] canvas').waitFor();
      await page.getByRole('button', { name: 'Month' }).click();
      await page.locator('.energy-bars[data-period="day"] canvas').waitFor();
      const total = (await page.locator('.total strong').textContent()) ?? '';
      assert.match(total, /^[\d.,]+ kWh$/);
      assert.ok((await page.locator('.energy-devices tbody tr').count()) >= 1);
      await shoot(page, 'energy');
    }
    await desk.getByRole('button', { name: 'Earlier' }).click();
    await desk.getByRole('button', { name: 'Later' }).waitFor();
  });

  test('the Logbook lists what happened with its time, searchable by device and kind, a page at a time', async () => {
    const door = devices.find((d) => 'contact' in d.state) ?? withCapability('power');
    for (const page of [desk, phone]) {
      await goToPage(page, 'Logbook');
      await page.locator('.entries li').first().waitFor();
      await page.getByLabel('Device').selectOption(door.serial_number);
      await page.getByLabel('What').selectOption('state');
      await page.locator('.entries li').first().waitFor();
      await waitForValue(
        async () => {
          const whos = await page.locator('.entries .who').allInnerTexts();
          return whos.length > 0 && whos.every((w) => w === door.name) ? true : undefined;
        },
        10_000,
        `only ${door.name}`,
      );
      const kinds = await page.locator('.entries li').evaluateAll((els) => els.map((e) => e.getAttribute('data-kind')));
      assert.ok(kinds.every((k) => k === 'state'));
      assert.match((await page.locator('.entries time').first().textContent()) ?? '', /\d/);
      // What the screen shows: the page goes on with More.
      await shoot(page, 'logbook', false);
    }
    await desk.getByRole('button', { name: 'More' }).click();
    await waitForValue(
      async () => ((await desk.locator('.entries li').count()) > 50 ? true : undefined),
      10_000,
      'a second page',
    );
  });

  test("deleting a device asks whether to delete its history too; deleted, it is gone from the Logbook's devices", async () => {
    const gone = devices.find((d) => 'temperature' in d.state && d !== withCapability('temperature')) ?? devices.at(-1);
    assert.ok(gone);
    await desk.goto(`/#/devices/${encodeURIComponent(gone.serial_number)}`);
    await desk.getByRole('button', { name: 'Delete device' }).click();
    await desk.getByLabel(/Also delete its history/).check();
    await shoot(desk, 'device-delete-history');
    await desk.getByRole('button', { name: 'Delete', exact: true }).click();
    await desk.getByText(`${gone.name} deleted, with its history.`).waitFor();
    await desk.getByRole('link', { name: 'Logbook' }).click();
    await desk.locator('.entries li').first().waitFor();
    const options = await desk.getByLabel('Device').locator('option').allInnerTexts();
    assert.ok(!options.some((o) => o.startsWith(gone.name)), options.join());
  });
});
