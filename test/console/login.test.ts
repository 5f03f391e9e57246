/**
 * Logging in to the console in a real browser against a real gateway process: the first visitor
 * sets the password with the setup code from the log; then a wrong password, the rate limit, a
 * logout, and a session that is still there after the gateway restarts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launch, logIn, logOut, openConsole, PHONE, shoot } from './browser.ts';
import { buildConsole, type GatewayProcess, setupCode, startGatewayProcess } from './rig.ts';

const PASSWORD = 'first visitor password';

describe('logging in to the console in a browser', () => {
  let g: GatewayProcess;
  let browser: Browser;

  before(async () => {
    buildConsole();
    g = await startGatewayProcess({ simDevices: 4 });
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await g?.dispose();
  });

  test('the first visitor enters the setup code from the log and chooses the password', async () => {
    const { page: small } = await openConsole(browser, g.url, PHONE);
    await small.getByLabel('Setup code').waitFor();
    await shoot(small, 'setup');
    await small.context().close();
    const { page } = await openConsole(browser, g.url);
    await page.getByLabel('Setup code').waitFor();
    await shoot(page, 'setup');
    await page.getByLabel('Setup code').fill('WRONG-CODE1');
    await page.getByLabel('New password (8 characters or more)').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /wrong setup code/i })
      .waitFor();
    await page.getByLabel('Setup code').fill(setupCode(g));
    await page.getByRole('button', { name: 'Set password and log in' }).click();
    await page.getByRole('link', { name: 'Devices' }).waitFor();
    await page.context().close();
  });

  test('2. a wrong password is refused, five lock the address out, logout ends the session, and a session outlives a restart', async () => {
    const kept: Page = (await openConsole(browser, g.url, PHONE)).page;
    await logIn(kept, PASSWORD);
    await shoot(kept, 'devices-small-network');
    const { page: wide } = await openConsole(browser, g.url);
    await logIn(wide, PASSWORD);
    await shoot(wide, 'devices-small-network');
    await wide.context().close();

    const { page: small } = await openConsole(browser, g.url, PHONE);
    await small.getByLabel('Password').waitFor();
    await shoot(small, 'login');
    const { page } = await openConsole(browser, g.url);
    await page.getByLabel('Password').waitFor();
    await shoot(page, 'login');
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Password').fill(`not the password ${i}`);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: /wrong password/i })
        .waitFor();
    }
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /too many failed attempts from this address: try again in 15 minutes/i })
      .waitFor();
    await shoot(page, 'login-limited');
    // The limit is per address: a phone on the same address is refused too, in the same words.
    await small.getByLabel('Password').fill(PASSWORD);
    await small.getByRole('button', { name: 'Log in' }).click();
    await small
      .getByRole('alert')
      .filter({ hasText: /too many failed attempts from this address/i })
      .waitFor();
    await shoot(small, 'login-limited');
    await small.context().close();

    // The console that was logged in before stays logged in; it logs out.
    await logOut(kept);
    await kept.getByLabel('Password').waitFor();
    const afterLogout = await kept.context().request.get(`${g.url}/console/api/devices`);
    assert.equal(afterLogout.status(), 401);

    // A third console logged in before the restart is still logged in after it.
    g = await g.restart();
    const { page: other } = await openConsole(browser, g.url);
    await logIn(other, PASSWORD);
    const cookies = await other.context().cookies();
    assert.deepEqual(cookies.map((c) => c.name).sort(), ['opencube_device', 'opencube_session']);
    for (const c of cookies) assert.deepEqual([c.name, c.httpOnly, c.sameSite], [c.name, true, 'Strict']);
    g = await g.restart();
    await other.reload();
    await other.getByRole('link', { name: 'Devices' }).waitFor();
    await other.locator('article.device').first().waitFor();
  });
});
