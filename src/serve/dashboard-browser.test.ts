// The dashboard in real headless Chromium, over runs made by the real CLI against simulators started here:
// a demo-like matrix (baseline, EAGLE-3 top-k 4 on spec v1, EAGLE-3 top-k 1 on spec v2) laid out as a
// matrix directory, then pages checked as a person would: the runs table with badges and a working config
// filter, a comparison with verdicts and charts, the Pareto view with its frontier highlighted (gold pixels in
// the screenshot, points linking to runs), and the live view following a `bench` while it runs.

import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchAgainstSimulator, SHORT_LEVELS } from '../cli/test-support/bench-sim.js';
import { runCli } from '../cli/test-support/run-cli.js';
import { type DecodedPng, decodePng } from '../report/png-decode.js';
import { storeLocation } from '../store/store.js';
import { type Dashboard, startDashboard } from './app.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = await mkdtemp(join(tmpdir(), 'bg-serve-'));
const results = join(dir, 'results');
mkdirSync(results);

const EAGLE3 = ['--speculative-algorithm', 'EAGLE3', '--speculative-num-steps', '3'];
const CONFIGS = [
  { name: 'baseline', sim: {} },
  { name: 'eagle3-topk4-v1', sim: { engineArgs: [...EAGLE3, '--speculative-eagle-topk', '4'] } },
  {
    name: 'eagle3-topk1-v2',
    sim: { engineArgs: [...EAGLE3, '--speculative-eagle-topk', '1'], env: { SGLANG_ENABLE_SPEC_V2: 'true' } },
  },
];
const MATRIX = 'demo-like-matrix';
/** Screenshots go here (set BENCHGATE_SHOTS=DIR to keep them for a look). */
const shots = process.env.BENCHGATE_SHOTS ?? dir;

/** Pixels within `tol` of an RGB colour. */
function colourPixels(img: DecodedPng, rgb: [number, number, number], tol = 40): number {
  let n = 0;
  for (let i = 0; i < img.rgba.length; i += 4)
    if (
      Math.abs(img.rgba[i] - rgb[0]) +
        Math.abs(img.rgba[i + 1] - rgb[1]) +
        Math.abs(img.rgba[i + 2] - rgb[2]) <
      tol
    )
      n++;
  return n;
}

let dashboard: Dashboard;
let browser: BrowserContext;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) return;
  // a matrix laid out as `benchgate run` leaves it: one run directory per config beside matrix-state.json
  const matrix = join(results, MATRIX);
  mkdirSync(matrix);
  const state: Record<string, unknown> = {};
  for (const c of CONFIGS) {
    const args = [...SHORT_LEVELS.slice(0, 1), '1,4,16', ...SHORT_LEVELS.slice(2)];
    const r = await benchAgainstSimulator({ results, name: c.name, sim: { timeScale: 4, ...c.sim }, args });
    expect(r.code, r.stderr).toBe(0);
    renameSync(r.dir, join(matrix, c.name));
    state[c.name] = { name: c.name, status: 'completed', completedLevels: [0, 1, 2], failure: null };
  }
  writeFileSync(
    join(matrix, 'matrix-state.json'),
    JSON.stringify({ schema: 'benchgate.matrix-state/1', matrixId: MATRIX, configs: state }),
  );
  const indexed = await runCli(['index', results, '--results', results]);
  expect(indexed.code, indexed.stderr).toBe(0);
  dashboard = await startDashboard({ location: storeLocation({ results }, {}), port: 0, livePollMs: 300 });
  browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1300, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'].concat([
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ]),
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await dashboard?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A page that records console errors and any request leaving the dashboard. */
async function open(path: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage();
  const problems: string[] = [];
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => !r.url().startsWith(dashboard.url) && problems.push(`request to ${r.url()}`));
  await page.goto(`${dashboard.url}${path}`, { waitUntil: 'load' });
  return { page, problems };
}

describe.skipIf(!existsSync(CHROMIUM))('the dashboard in headless Chromium', () => {
  it('lists runs with validity badges, filters by a config key, and compares picked runs', async () => {
    const { page, problems } = await open('/');
    expect(await page.locator('#runs tbody tr').count()).toBe(3);
    expect(await page.locator('#runs .badge').count()).toBe(3);
    await page.fill('input[name="where"]', 'speculative.algorithm=EAGLE3');
    await page.click('form.filters button');
    await page.waitForURL(/where=/);
    const names = await page.locator('#runs tbody tr td:nth-child(3)').allTextContents();
    expect(names.sort()).toEqual(['eagle3-topk1-v2', 'eagle3-topk4-v1']);
    await page.screenshot({ path: join(shots, 'runs.png') });
    // the table lists the newest run first: the baseline is the older of the two picked, not the first
    const older = (await page
      .locator('#runs tbody tr')
      .nth(1)
      .locator('td:nth-child(2)')
      .textContent())!.trim();
    const newer = (await page
      .locator('#runs tbody tr')
      .nth(0)
      .locator('td:nth-child(2)')
      .textContent())!.trim();
    await page.locator('#runs input[type="checkbox"]').nth(0).check();
    await page.locator('#runs input[type="checkbox"]').nth(1).check();
    await page.click('text=Compare picked runs');
    await page.waitForURL(/\/compare\?/);
    expect(await page.locator('header.bg-nav a').count()).toBe(4);
    expect(await page.locator('#baseline-choice b').textContent()).toBe(older);
    await page.click(`#baseline-choice a:text("${newer}")`);
    await page.waitForURL(/baseline=/);
    expect(await page.locator('#baseline-choice b').textContent()).toBe(newer);
    const text = await page.locator('body').textContent();
    expect(text).toMatch(/faster|slower|no meaningful difference|higher|lower/);
    expect(await page.locator('figure.chart svg').count()).toBeGreaterThan(2);
    const shot = decodePng(await page.screenshot({ fullPage: true }));
    expect(shot.height).toBeGreaterThan(1500);
    expect(problems).toEqual([]);
  });

  it('marks the frontier of the matrix in the Pareto view, each point linking to its run and on to its history', async () => {
    const { page, problems } = await open('/pareto');
    expect(await page.locator('h1').textContent()).toContain(MATRIX);
    expect(await page.locator('svg path.frontier').count()).toBe(1);
    const onFrontier = await page.locator('svg circle.frontier-point').count();
    expect(onFrontier).toBeGreaterThan(0);
    expect(await page.locator('#pareto td', { hasText: '★ frontier' }).count()).toBe(onFrontier);
    const chart = page.locator('#chart svg');
    const img = decodePng(await chart.screenshot());
    // the frontier's gold band and rings are there for the eye, not only in the markup
    expect(colourPixels(img, [0xf2, 0xb7, 0x05], 90)).toBeGreaterThan(200);
    await page.screenshot({ path: join(shots, 'pareto.png'), fullPage: true });
    await page.locator('#chart svg a').first().click();
    await page.waitForURL(/\/run\?id=/);
    expect(await page.locator('h1').textContent()).toContain(MATRIX);
    // from a run to the history of its configuration: one point per level, each with its interval
    await page.click('text=history of this configuration');
    await page.waitForURL(/\/history\?config=/);
    expect(await page.locator('#chart svg a circle').count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('#chart svg line.interval').count()).toBeGreaterThanOrEqual(3);
    // the History tab alone shows one configuration, named so that two same-named entries differ; "any" all
    await page.goto(`${dashboard.url}/history`);
    expect(await page.locator('#history-scope').textContent()).toMatch(/config [0-9a-f]{8}/);
    const one = await page.locator('table tbody tr').count();
    await page.goto(`${dashboard.url}/history?config=`);
    expect(await page.locator('table tbody tr').count()).toBeGreaterThan(one);
    expect(problems).toEqual([]);
  });

  it('shows a bench while it runs: the running level updates as requests complete', async () => {
    const { page, problems } = await open('/live');
    await page.waitForSelector('#status:has-text("no run in progress")');
    const readings: number[] = [];
    const bench = benchAgainstSimulator({
      results,
      name: 'live-bench',
      sim: { timeScale: 1 },
      args: ['--concurrency', '2,4', '--requests', '24', '--input-tokens', '64', '--output-tokens', '48'],
    });
    const card = page.locator('.card', { hasText: 'live-bench' });
    await card.locator('.badge.running').first().waitFor({ timeout: 60_000 });
    const done = card.locator('[data-kpi="done"] b');
    // the running level's server telemetry (the "running" column), scraped while the level is measured
    const liveRunning = card.locator('tr[data-status="running"] td:nth-child(9)');
    const telemetryReadings: string[] = [];
    for (let i = 0; i < 40 && (new Set(readings).size < 3 || telemetryReadings.length === 0); i++) {
      readings.push(Number((await done.textContent())?.split('/')[0].trim()));
      const tm = (await liveRunning.count()) ? await liveRunning.first().textContent() : null;
      if (tm && /\d/.test(tm)) telemetryReadings.push(tm);
      await page.waitForTimeout(400);
    }
    expect(telemetryReadings.length, 'server telemetry shown for the running level').toBeGreaterThan(0);
    // the count of requests done rose while we watched, against the level's total
    expect(new Set(readings.filter((n) => n > 0)).size).toBeGreaterThanOrEqual(2);
    expect(await done.textContent()).toMatch(/\/ 24$/);
    expect(await card.locator('[data-kpi="throughput"] b').textContent()).toMatch(/\d/);
    const shot = decodePng(await page.screenshot({ path: join(shots, 'live.png') }));
    expect(colourPixels(shot, [0x15, 0x65, 0xc0], 30)).toBeGreaterThan(50); // the running badge and sparkline
    const r = await bench;
    expect(r.code, r.stderr).toBe(0);
    await card.locator('tr[data-level="1"][data-status="done"]').waitFor({ timeout: 20_000 });
    expect(problems).toEqual([]);
  }, 120_000);
});
