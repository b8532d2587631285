/**
 * A real browser for the page's tests: Debian's Chromium driven by playwright-core (never a
 * downloaded browser). With CI=true a missing Chromium fails the suite; elsewhere the suite is skipped
 * and says why. Each page records its console errors and uncaught exceptions, and axe-core (from
 * node_modules) is run inside it on demand.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import { TOKEN_KEY, sessionRecord } from '../src/consulta/api.js';

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

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

export interface Watched {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Console errors and uncaught exceptions so far. */
  readonly errors: string[];
}

/** A fresh browser context (its own sessionStorage: a new browser as far as the page can tell). */
export async function newPage(browser: Browser, width = 1280, height = 900): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'es-MX', timezoneId: 'America/Mexico_City' });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => errors.push(`uncaught: ${error.message}`));
  return { page, context, errors };
}

/**
 * Opens the context's pages signed in with `token`, as the login form leaves a tab (the token in the
 * tab's sessionStorage, before the page's first script runs): for the tests whose subject is not the
 * login; the login form's own tests go through it. Only the first document of the service's origin in
 * a tab is signed in, so a tab that logs out stays logged out.
 */
export async function signIn(context: BrowserContext, base: string, token: string): Promise<void> {
  const session = sessionRecord(token, Date.now() + 25 * 60_000);
  await context.addInitScript(
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
 * strict CSP during the check.
 */
export async function axeViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeSource);
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
