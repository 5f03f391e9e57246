/**
 * The console's Zigbee pages in a real browser (Debian's Chromium through playwright-core) against
 * a real gateway process with the simulated Zigbee network, on a desktop and a phone: the network
 * map scanned on demand and drawn (a router that is offline marked, zoom and pan with the mouse and
 * two fingers), a firmware update from a device's page with its progress and time left on both
 * consoles, a group made, switched, changed and deleted, and a binding made, refused and undone on
 * a remote's page. Each is photographed at both widths (.tmp/console-screenshots).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { waitForValue } from '../helpers/foundation.ts';
import { shoot } from './browser.ts';
import { type ConsoleClient, consoleClient } from './client.ts';
import { type Consoles, startConsoles, startGatewayProcess } from './rig.ts';

const PASSWORD = 'a console password';
/** Every captured model up to the IKEA remote (32 devices): lights, switches, a remote, sensors. */
const SIM_DEVICES = 32;

describe('the Zigbee pages of the console in a browser', () => {
  let consoles: Consoles;
  let desk: Page;
  let phone: Page;
  let c: ConsoleClient;
  let offlineRouter: string;

  const devices = async (): Promise<any[]> => (await c.call('GET', '/devices')).body.devices;
  const byModel = async (model: string) => {
    const d = (await devices()).find((x) => x.model === model);
    assert.ok(d, `the simulated network has a ${model}`);
    return d;
  };

  before(async () => {
    // A first run makes the network; one router is then offline when the gateway starts again.
    const first = await startGatewayProcess({ simDevices: SIM_DEVICES });
    await first.stop();
    const file = join(first.dataDir, 'zigbee-sim', 'zigbee2mqtt.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    const router = saved.devices.find((d: any) => d.model === 'JTQJ-BF-01LM/BW');
    assert.ok(router, 'the simulated gas sensor (a router) is saved');
    router.online = false;
    offlineRouter = router.friendly;
    writeFileSync(file, JSON.stringify(saved));
    consoles = await startConsoles(PASSWORD, { dataDir: first.dataDir, port: first.port, simDevices: SIM_DEVICES });
    ({ desk, phone } = consoles);
    c = consoleClient(consoles.g.url);
    assert.equal((await c.login(PASSWORD)).status, 200);
    await waitForValue(async () => (await devices()).length >= SIM_DEVICES, 30_000, 'every simulated device listed');
  });

  after(async () => {
    await consoles?.close();
  });

  test('the map is scanned on demand with its warning, drawn with links coloured by quality and the offline router marked, and zooms and pans', async () => {
    await desk.goto('/#/zigbee/map');
    await desk.getByText('No map of zigbee2mqtt yet: scan the network.').waitFor();
    await desk.getByRole('note').filter({ hasText: 'floods it with requests' }).waitFor();
    await desk.getByRole('button', { name: 'Scan the network' }).click();
    const map = desk.locator('svg.network-map');
    await map.waitFor({ timeout: 60_000 });
    // The other console hears the scan end and draws the same map.
    await phone.goto('/#/zigbee/map');
    await phone.locator('svg.network-map').waitFor();

    const nodes = await map.locator('g.node').count();
    assert.equal(nodes, SIM_DEVICES + 1, 'every device and the coordinator');
    assert.equal(await map.locator('g.node.coordinator').count(), 1);
    assert.ok((await map.locator('g.node.router').count()) > 5);
    assert.ok((await map.locator('g.node.end_device').count()) > 5);
    for (const q of ['good', 'fair', 'poor'])
      assert.ok((await map.locator(`line.link.${q}`).count()) > 0, `some links are ${q}`);
    const marked = map.locator('g.node.stale', { hasText: offlineRouter.slice(0, 21) });
    await marked.locator('text.stale-text', { hasText: 'offline' }).waitFor();

    // Names are never written over each other, on either screen (a crowded map leaves some out).
    for (const p of [desk, phone]) {
      const overlapping = await p.locator('svg.network-map').evaluate((svg) => {
        const boxes = [...svg.querySelectorAll('g.node text:not(.stale-text)')].map((t) => ({
          text: t.textContent,
          r: t.getBoundingClientRect(),
        }));
        const pairs: string[] = [];
        for (const [i, a] of boxes.entries())
          for (const b of boxes.slice(i + 1))
            if (
              Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left) > 1 &&
              Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top) > 1
            )
              pairs.push(`${a.text} / ${b.text}`);
        return pairs;
      });
      assert.deepEqual(overlapping, [], 'names written over each other');
    }
    assert.ok((await map.locator('g.node.end_device text').count()) > 0, 'the desktop names some end devices');

    const box = async (p: Page) =>
      (await p.locator('svg.network-map').getAttribute('viewBox'))?.split(' ').map(Number) ?? [];
    const whole = await box(desk);
    await desk.getByRole('button', { name: 'Zoom in' }).click();
    const closer = await box(desk);
    assert.ok((closer[2] ?? 0) < (whole[2] ?? 0), `zoomed in: ${closer} from ${whole}`);
    const rect = await map.boundingBox();
    assert.ok(rect);
    await desk.mouse.move(rect.x + 60, rect.y + 60);
    await desk.mouse.down();
    await desk.mouse.move(rect.x + 200, rect.y + 140, { steps: 5 });
    await desk.mouse.up();
    const moved = await box(desk);
    assert.ok((moved[0] ?? 0) < (closer[0] ?? 0), `dragged right: the view moved left (${moved} from ${closer})`);
    await desk.getByRole('button', { name: 'Fit' }).click();
    assert.deepEqual(await box(desk), whole);

    // A tapped node shows its links with their quality, and leads to its device.
    await map.locator('g.node.router').first().click();
    await desk.getByRole('region', { name: 'Chosen node' }).getByRole('cell').first().waitFor();
    await shoot(desk, 'network-map');

    // Two fingers on a phone: apart zooms in, a drag pans.
    const phoneMap = phone.locator('svg.network-map');
    const r = await phoneMap.boundingBox();
    assert.ok(r);
    const before = await box(phone);
    const touch = async (type: string, id: number, x: number, y: number) =>
      phoneMap.dispatchEvent(type, {
        pointerId: id,
        pointerType: 'touch',
        isPrimary: id === 1,
        clientX: x,
        clientY: y,
        bubbles: true,
      });
    const cx = r.x + r.width / 2;
    const cy = r.y + r.height / 2;
    await touch('pointerdown', 1, cx - 30, cy);
    await touch('pointerdown', 2, cx + 30, cy);
    await touch('pointermove', 1, cx - 90, cy);
    await touch('pointermove', 2, cx + 90, cy);
    await touch('pointerup', 1, cx - 90, cy);
    await touch('pointerup', 2, cx + 90, cy);
    const pinched = await box(phone);
    assert.ok((pinched[2] ?? 0) < (before[2] ?? 0) / 2, `pinched apart: zoomed in (${pinched} from ${before})`);
    await phone.getByRole('button', { name: 'Fit' }).click();
    await shoot(phone, 'network-map');
  });

  test('a light is checked and updated from its page, with the percent and time left on both consoles, then shows its new firmware', async () => {
    const light = await byModel('LED1836G9');
    for (const p of [desk, phone]) {
      await p.goto(`/#/devices/${light.serial_number}`);
      await p.getByRole('heading', { name: 'Firmware' }).waitFor();
    }
    await desk.getByText('Not checked yet.').first().waitFor();
    await desk.getByRole('button', { name: 'Check for update' }).click();
    await desk.getByText('A newer firmware is available.').waitFor();
    await phone.getByText('A newer firmware is available.').waitFor();
    desk.once('dialog', (d) => void d.accept());
    await desk.getByRole('button', { name: 'Update', exact: true }).click();
    // The simulated update takes ten seconds: photographed while it runs, on both.
    const running = /Updating: [3-7]0 %/;
    await desk.getByText(running).waitFor();
    await phone.getByText(running).waitFor();
    await desk.getByText(/s left|min left/).waitFor();
    await shoot(desk, 'firmware-update');
    await shoot(phone, 'firmware-update');
    assert.equal(await desk.getByRole('button', { name: 'Stop the update' }).count(), 1);
    await desk.getByText('Up to date.').waitFor({ timeout: 30_000 });
    await phone.getByText('Up to date.').waitFor();
    const now = (await devices()).find((d) => d.serial_number === light.serial_number);
    assert.notEqual(now.firmware_version, light.firmware_version, 'D3 shows the new build');
    await desk
      .getByRole('region', { name: 'Firmware' })
      .getByRole('cell', { name: new RegExp(`^${now.firmware_version.replace(/\./g, '\\.')}`) })
      .waitFor();

    // The firmware tab lists it, up to date, among the others.
    await desk.goto('/#/zigbee/firmware');
    const row = desk.locator(`tr[data-serial="${light.serial_number}"]`);
    await row.getByText('Up to date.').waitFor();
    await desk.getByRole('button', { name: 'Check all for updates' }).click();
    await desk.getByText('Checking every device that takes updates').waitFor();
  });

  test('a group of two lights is made on the groups page, switches the room from its card, is renamed, changes members and is deleted', async () => {
    const a = await byModel('LED1836G9');
    const b = await byModel('LED2201G8');
    await desk.goto('/#/zigbee/groups');
    await desk.getByRole('button', { name: 'New group' }).click();
    const form = desk.getByRole('form', { name: 'New group' });
    await form.getByLabel('Name').fill('Living room');
    await form.getByLabel(a.name, { exact: true }).check();
    await form.getByLabel(b.name, { exact: true }).check();
    await form.getByRole('button', { name: 'Make the group' }).click();
    const card = desk.locator('article.group', { hasText: 'Living room' });
    await card.waitFor();
    await phone.goto('/#/zigbee/groups');
    const onPhone = phone.locator('article.group', { hasText: 'Living room' });
    await onPhone.waitFor();

    // Its switch is one group command: both lights turn on.
    const power = card.getByRole('switch', { name: 'Power' });
    await power.waitFor();
    if ((await power.getAttribute('aria-checked')) === 'true') {
      await power.click();
      await card.locator('[aria-checked="false"]').waitFor();
    }
    await power.click();
    await waitForValue(
      async () => {
        const list = await devices();
        return [a, b].every(
          (m) => list.find((d) => d.serial_number === m.serial_number)?.state?.power?.powerState === 'on',
        );
      },
      15_000,
      'both lights on',
    );
    await onPhone.getByRole('switch', { name: 'Power' }).and(phone.locator('[aria-checked="true"]')).waitFor();
    await shoot(desk, 'group');
    await shoot(phone, 'group');

    // The group is a device card of the device list too.
    const made = (await c.call('GET', '/zigbee/groups')).body.groups.find((x: any) => x.name === 'Living room');
    await desk.goto('/#/devices');
    await desk
      .locator(`article.device[data-serial="${made.serial_number}"]`)
      .getByRole('switch', { name: 'Power' })
      .waitFor();

    // Its device page names its members.
    await desk.goto(`/#/devices/${made.serial_number}`);
    const section = desk.getByRole('region', { name: 'Group' });
    await section.getByRole('link', { name: a.name }).waitFor();
    await section.getByRole('link', { name: b.name }).waitFor();
    assert.equal(await desk.getByRole('region', { name: 'Bindings' }).count(), 0, 'a group has no bindings of its own');

    await desk.goto('/#/zigbee/groups');
    await card.getByRole('button', { name: 'Rename' }).click();
    await card.getByLabel('New name').fill('Lounge');
    await card.getByRole('button', { name: 'Save' }).click();
    const lounge = desk.locator('article.group', { hasText: 'Lounge' });
    await lounge.waitFor();
    await phone.locator('article.group', { hasText: 'Lounge' }).waitFor();
    await lounge.locator('.members li', { hasText: b.name }).getByRole('button', { name: 'Remove' }).click();
    await lounge.locator('.members li', { hasText: b.name }).waitFor({ state: 'detached' });
    await lounge.getByLabel('Add to Lounge').selectOption({ label: b.name });
    await lounge.getByRole('button', { name: 'Add', exact: true }).click();
    await lounge.locator('.members li', { hasText: b.name }).waitFor();

    // A name in use is refused in words.
    await desk.getByRole('button', { name: 'New group' }).click();
    await form.getByLabel('Name').fill('Lounge');
    await form.getByRole('button', { name: 'Make the group' }).click();
    await form.getByRole('alert').filter({ hasText: 'is named "Lounge" already' }).waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();

    desk.once('dialog', (d) => void d.accept());
    await lounge.getByRole('button', { name: 'Delete group' }).click();
    await lounge.waitFor({ state: 'detached' });
    await phone.locator('article.group', { hasText: 'Lounge' }).waitFor({ state: 'detached' });
  });

  test("a remote is bound to a light on the remote's page, a binding between clusters that do not match is refused in words, and it is undone", async () => {
    const remote = await byModel('E1524/E1810');
    const light = await byModel('9290012573A');
    const thermostat = await byModel('SPZB0001');
    await desk.goto(`/#/devices/${remote.serial_number}`);
    const section = desk.getByRole('region', { name: 'Bindings' });
    await section.waitFor();
    await section.getByRole('button', { name: 'Add a binding' }).click();
    const form = section.getByRole('form', { name: 'Add a binding' });
    await form.getByLabel('Send to').selectOption({ label: thermostat.name });
    await form.getByLabel('Thermostat', { exact: true }).check();
    await form.getByRole('button', { name: 'Bind' }).click();
    await form.getByRole('alert').filter({ hasText: 'hvacThermostat does not match' }).waitFor();
    await form.getByLabel('Thermostat', { exact: true }).uncheck();
    await form.getByLabel('Send to').selectOption({ label: light.name });
    await form.getByLabel('On/off', { exact: true }).check();
    await form.getByRole('button', { name: 'Bind' }).click();
    const item = section.locator('.binding-list li', { hasText: light.name });
    await item.getByText('On/off').waitFor();
    await phone.goto(`/#/devices/${remote.serial_number}`);
    await phone
      .getByRole('region', { name: 'Bindings' })
      .locator('.binding-list li', { hasText: light.name })
      .waitFor();
    await shoot(desk, 'bindings');
    await shoot(phone, 'bindings');
    await item.getByRole('button', { name: 'Remove' }).click();
    await item.waitFor({ state: 'detached' });
    await phone
      .getByRole('region', { name: 'Bindings' })
      .locator('.binding-list li', { hasText: light.name })
      .waitFor({ state: 'detached' });
  });
});
