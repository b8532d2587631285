/**
 * `npm run lighthouse`: Lighthouse (mobile preset: a mid-range phone on a slow 4G link, simulated) on
 * the page for people, in Debian's Chromium, for three views: the login, search results and a
 * fraction. The service must be running (`npm start`); the views after the login are measured in the
 * same tab after logging in, since the session lives in the tab (docs/adr/0007-consulta-session.md),
 * with the browser's cache emptied before each run so that no view is measured warm.
 *
 * Configuration: LIGHTHOUSE_URL (default http://127.0.0.1:8000), LIGHTHOUSE_USER and
 * LIGHTHOUSE_PASSWORD (default demo/demo), CHROMIUM_PATH (default /usr/bin/chromium), and
 * LIGHTHOUSE_CPU_MULTIPLIER to calibrate the preset's 4× CPU slowdown to a host much slower or faster
 * than the one it assumes (its `benchmarkIndex`, printed with each view; Lighthouse's own advice for
 * such hosts). Prints each
 * view's scores, writes the full reports to bench/results/, and exits non-zero when a target is missed:
 * accessibility and best practices 100, performance at least 95.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch } from 'chrome-launcher';
import lighthouse from 'lighthouse';
import type { Flags } from 'lighthouse';
import puppeteer from 'puppeteer-core';
import type { Page } from 'puppeteer-core';

const BASE = process.env['LIGHTHOUSE_URL'] ?? 'http://127.0.0.1:8000';
const USER = process.env['LIGHTHOUSE_USER'] ?? 'demo';
const PASSWORD = process.env['LIGHTHOUSE_PASSWORD'] ?? 'demo';
const CHROMIUM = process.env['CHROMIUM_PATH'] || '/usr/bin/chromium';
const RESULTS = join(import.meta.dirname, '..', '..', 'bench', 'results');

const CPU_MULTIPLIER = process.env['LIGHTHOUSE_CPU_MULTIPLIER'] ? Number(process.env['LIGHTHOUSE_CPU_MULTIPLIER']) : undefined;
if (CPU_MULTIPLIER !== undefined && !(CPU_MULTIPLIER > 0)) throw new Error('LIGHTHOUSE_CPU_MULTIPLIER must be a positive number');

const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
const TARGETS: Record<(typeof CATEGORIES)[number], number> = { performance: 95, accessibility: 100, 'best-practices': 100 };

const VIEWS = [
  { name: 'login', path: '/consulta/', session: false },
  { name: 'results', path: '/consulta/?q=caf%C3%A9%20tostado', session: true },
  { name: 'fraction', path: '/consulta/fraccion/4011.10.10', session: true },
];

/** Logs in on this tab, once: the session then stays in the tab's storage. */
async function logIn(page: Page): Promise<void> {
  await page.goto(`${BASE}/consulta/`);
  await page.waitForSelector('#usuario, #q');
  if ((await page.$('#q')) !== null) return;
  await page.type('#usuario', USER);
  await page.type('#contrasena', PASSWORD);
  await page.click('form.acceso button[type=submit]');
  await page.waitForSelector('#q');
}

async function main(): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  const chrome = await launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  let missed = 0;
  try {
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    const page = await browser.newPage();
    for (const view of VIEWS) {
      if (view.session) await logIn(page);
      const cdp = await page.createCDPSession();
      await cdp.send('Network.clearBrowserCache');
      await cdp.detach();
      // The session is in the tab's storage: the views behind the login keep it (the cache is emptied above).
      const flags: Flags = { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: [...CATEGORIES], disableStorageReset: view.session };
      if (CPU_MULTIPLIER !== undefined) flags.throttling = { cpuSlowdownMultiplier: CPU_MULTIPLIER };
      const result = await lighthouse(BASE + view.path, flags, undefined, page);
      if (result === undefined) throw new Error(`Lighthouse gave no result for ${view.path}`);
      const report = Array.isArray(result.report) ? result.report.join('\n') : result.report;
      writeFileSync(join(RESULTS, `lighthouse-${view.name}.json`), report);
      const scores = CATEGORIES.map((c) => [c, Math.round((result.lhr.categories[c]?.score ?? 0) * 100)] as const);
      const machine = `benchmarkIndex ${Math.round(result.lhr.environment.benchmarkIndex)}`;
      const cls = result.lhr.audits['cumulative-layout-shift']?.displayValue ?? '?';
      const lcp = result.lhr.audits['largest-contentful-paint']?.displayValue ?? '?';
      console.log(`${view.name.padEnd(9)} ${scores.map(([c, s]) => `${c} ${s}`).join('  ')}  (LCP ${lcp}, CLS ${cls}, ${machine}) ${view.path}`);
      for (const [c, s] of scores) {
        if (s >= TARGETS[c]) continue;
        missed++;
        const failing = result.lhr.categories[c]?.auditRefs
          .map((ref) => result.lhr.audits[ref.id])
          .filter((a) => a !== undefined && a.score !== null && a.score < 1 && a.scoreDisplayMode !== 'informative')
          .map((a) => `${a!.id} (${a!.displayValue ?? a!.score})`);
        console.log(`  ${c} below ${TARGETS[c]}: ${failing?.join(', ') ?? ''}`);
      }
    }
    await browser.disconnect();
  } finally {
    chrome.kill();
  }
  if (missed > 0) process.exitCode = 1;
}

await main();
