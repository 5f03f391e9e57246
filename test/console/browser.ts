/**
 * Debian's Chromium driven by playwright-core, for the console's browser tests. The browser is
 * installed with apt-get when missing (under a lock: two test files may ask at once), never
 * downloaded; a machine where it cannot be installed fails the test plainly, saying why.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { ROOT } from '../helpers/cli.ts';

export const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Where the tests write their screenshots (git-ignored; docs/console/ holds the chosen ones). */
export const SHOTS = join(ROOT, '.tmp', 'console-screenshots');

/** Installs Debian's chromium when it is missing; throws a plain error when it cannot. */
export function ensureChromium(): string {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  try {
    // flock: one apt-get at a time on this machine, whichever test file asks first.
    execFileSync(
      'flock',
      [
        '/tmp/opencube-apt.lock',
        'sh',
        '-c',
        'DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium || ' +
          '(apt-get -o DPkg::Lock::Timeout=600 update && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium)',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], timeout: 15 * 60_000 },
    );
  } catch (err) {
    const detail = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).slice(-500);
    throw new Error(`Debian's chromium is needed by the console's browser tests and could not be installed: ${detail}`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is missing`);
  return CHROMIUM;
}

/** Launches a headless Chromium (a fresh temporary profile each time); close it in after(). */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: ensureChromium(), headless: true, args: FLAGS });
}

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

/** A console in its own browser context (its own cookies), as a person on another device. */
export async function openConsole(
  browser: Browser,
  url: string,
  viewport = DESKTOP,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, baseURL: url });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto('/');
  return { context, page };
}

/** Logs a console in with the password (the login form is showing). */
export async function logIn(page: Page, password: string): Promise<void> {
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('banner').waitFor();
}

/** Opens one of the console's pages from its header: its link in the row, or on a phone through the Menu. */
export async function goToPage(page: Page, name: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true }).click();
}

/** Two consoles logged in, one at desktop and one at phone width, as a person with a laptop and a phone. */
export async function openBothWidths(
  browser: Browser,
  url: string,
  password: string,
): Promise<{ desk: Page; phone: Page }> {
  const desk = (await openConsole(browser, url)).page;
  const phone = (await openConsole(browser, url, PHONE)).page;
  await logIn(desk, password);
  await logIn(phone, password);
  return { desk, phone };
}

/** Saves a screenshot of the page as `<name>-<desktop|phone>.png` (the whole page, or what the screen shows). */
export async function shoot(page: Page, name: string, fullPage = true): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  // Messages come and go; the picture is of the page under them.
  await page.evaluate("for (const b of document.querySelectorAll('.toast .close')) b.click()");
  await page.locator('.toast').first().waitFor({ state: 'detached' });
  const width = page.viewportSize()?.width ?? DESKTOP.width;
  const file = join(SHOTS, `${name}-${width < 600 ? 'phone' : 'desktop'}.png`);
  // The whole page from its top: scrolled, its sticky header would be drawn halfway down.
  if (fullPage) await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: file, fullPage });
  return file;
}

/** Logs out from the header: its button in the row, or on a phone in the Menu. */
export async function logOut(page: Page): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('banner').getByRole('button', { name: 'Log out' }).click();
}

/**
 * The header as a person sees it: its height, and each item it shows on its own line (the open
 * menu's list drops below it and is left out) with its top and bottom. One line: every item's
 * box overlaps every other's from top to bottom, and the header is lower than two of its items.
 */
export async function headerLine(page: Page): Promise<{ height: number; oneLine: boolean; items: string[] }> {
  return page.evaluate(`(() => {
    const header = document.querySelector('header.top');
    const inRow = (el) => {
      const s = getComputedStyle(el);
      return el.getClientRects().length > 0 && s.position !== 'absolute' && s.position !== 'fixed';
    };
    // The pages' links count one by one where they sit in the row (a row of links could wrap).
    const shown = [...header.children]
      .filter(inRow)
      .flatMap((el) => (el.tagName === 'NAV' ? [...el.children].filter(inRow) : [el]));
    const boxes = shown.map((el) => ({ el, r: el.getBoundingClientRect() }));
    const top = Math.max(...boxes.map((b) => b.r.top));
    const bottom = Math.min(...boxes.map((b) => b.r.bottom));
    const height = header.getBoundingClientRect().height;
    const tallest = Math.max(...boxes.map((b) => b.r.height));
    return {
      height,
      oneLine: boxes.length > 1 && top < bottom && height < 2 * tallest,
      items: boxes.map((b) => (b.el.className || b.el.tagName) + ' ' + Math.round(b.r.top) + '-' + Math.round(b.r.bottom)),
    };
  })()`);
}
