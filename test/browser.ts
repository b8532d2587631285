/**
 * A real browser for the page's tests: Debian's Chromium driven by playwright-core (never a
 * downloaded browser). With CI=true a missing Chromium fails the suite; elsewhere the suite is skipped
 * and says why. Each page records its console errors and uncaught exceptions, and axe-core (from
 * node_modules) is run inside it on demand.
 *
 * One Chromium serves every test file of a process (openBrowser): npm test's worker processes run
 * many files one after another, and a launch cost about 2.7 s of CPU per file (launch, first tab,
 * close); the worker closes it when it ends (tools/test-process.ts), and a file run alone closes it
 * when done. Each file that uses it has a browser context of its own, closed with every tab left
 * open when the file releases the browser: nothing a file opened outlives it.
 *
 * Every page a test opens is a new tab of that context (newPage): a tab has its own sessionStorage,
 * the only storage the page uses (no cookie, localStorage or IndexedDB), so to the page it is a new
 * browser. A context per page cost Chromium about a second of CPU more for each (its own renderer
 * and network state, and every module fetched and compiled again with no cache).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { TOKEN_KEY, sessionRecord } from '../src/consulta/api.js';
import { closeAtEnd, keepsAcrossFiles } from '../tools/test-process.js';

export const CHROMIUM = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Null when the browser tests can run; else why not (CI=true never gets a reason: it fails instead). */
export function browserMissing(): string | null {
  if (existsSync(CHROMIUM)) return null;
  if (process.env['CI'] === 'true') throw new Error(`CI=true needs Chromium at ${CHROMIUM} (Debian package chromium; .ci/run installs it)`);
  return `Chromium is not installed at ${CHROMIUM} (Debian package chromium, or set CHROMIUM_PATH)`;
}

/** A Chromium of its own (the README's screenshots); the tests share one: openBrowser. */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** The process's Chromium, once launched; and how many suites hold it now (openBrowser, releaseBrowser). */
let shared: Promise<Browser> | undefined;
let holders = 0;

/**
 * The process's one Chromium, launched on first use (again if it has gone away); each call is paired
 * with a releaseBrowser() when the suite is done with it (its `after`).
 */
export function openBrowser(): Promise<Browser> {
  holders++;
  if (shared === undefined) {
    const launching = launch();
    shared = launching;
    const kept = keepsAcrossFiles() ? closeAtEnd(() => closeShared(launching)) : undefined;
    const forget = (): void => {
      if (shared === launching) shared = undefined;
      kept?.forget();
    };
    launching.then((browser) => browser.on('disconnected', forget), forget);
  }
  return shared;
}

async function closeShared(browser: Promise<Browser>): Promise<void> {
  await (await browser.catch(() => undefined))?.close();
}

/**
 * The suite is done with the browser: once no suite holds it, the tabs and the context the file
 * used are closed; and the browser too, unless this process runs more test files (a worker of npm
 * test, which closes it when it ends).
 */
export async function releaseBrowser(): Promise<void> {
  if (holders === 0) throw new Error('releaseBrowser() without openBrowser()');
  if (--holders > 0 || shared === undefined) return;
  const browser = await shared.catch(() => undefined);
  if (browser === undefined) return;
  const context = contexts.get(browser);
  contexts.delete(browser);
  if (!keepsAcrossFiles()) await closeShared(shared);
  else await (await context)?.close();
}

export interface Watched {
  /** A new tab; `page.close()` when done (the context is shared: newPage). */
  readonly page: Page;
  /** Console errors and uncaught exceptions so far. */
  readonly errors: string[];
}

const contexts = new WeakMap<Browser, Promise<BrowserContext>>();

/** The browser's one context for the file that uses it, made on first use; closed when the file releases the browser. */
function sharedContext(browser: Browser): Promise<BrowserContext> {
  let context = contexts.get(browser);
  if (context === undefined) {
    context = browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-MX', timezoneId: 'America/Mexico_City' });
    contexts.set(browser, context);
  }
  return context;
}

/** A new tab at this size (its own sessionStorage: a new browser as far as the page can tell). */
export async function newPage(browser: Browser, width = 1280, height = 900): Promise<Watched> {
  const page = await (await sharedContext(browser)).newPage();
  // Playwright's 30 s default is a speed check on a loaded machine (a batch's first slice starts a
  // thread over the whole dataset): the same bound as lifetime.ts waitFor.
  page.setDefaultTimeout(120_000);
  await page.setViewportSize({ width, height });
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return { page, errors };
}

/**
 * Opens the tab's documents signed in with `token`, as the login form leaves a tab (the token in the
 * tab's sessionStorage, before the page's first script runs): for the tests whose subject is not the
 * login; the login form's own tests go through it. Only the first document of the service's origin in
 * the tab is signed in, so a tab that logs out stays logged out.
 */
export async function signIn(page: Page, base: string, token: string): Promise<void> {
  const session = sessionRecord(token, Date.now() + 25 * 60_000);
  await page.addInitScript(
    ({ origin, key, value }) => {
      if (location.origin !== origin || sessionStorage.getItem('test.signed-in') !== null) return;
      sessionStorage.setItem('test.signed-in', 'yes');
      sessionStorage.setItem(key, value);
    },
    { origin: new URL(base).origin, key: TOKEN_KEY, value: session },
  );
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * axe-core's violations on the page as it is now, of every impact. The script is evaluated through
 * the browser's debugging protocol, which the page's CSP does not govern, so the page keeps its own
 * strict CSP during the check; once per document (a second check of the same document, after the
 * person's actions changed it, runs the same axe again: its results are computed afresh at each run).
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Violation[] }> } }).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
