// Loads the HTML report in real headless Chromium: no console errors, charts present, screenshot taken.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTool } from '../test-support/needs.js';
import { compareRuns } from './compare.js';
import { renderHtml } from './render-html.js';
import { buildRun, type FixtureRun, specs } from './test-support.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = await mkdtemp(join(tmpdir(), 'bg-html-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

const run = (name: string, e2eMs: number): FixtureRun => ({
  name,
  config: { model: 'story-moe', tp_size: 8 },
  levels: [1, 2, 4, 8].map((c) => ({
    concurrency: c,
    specs: specs(20, { e2eMs, ttftMs: e2eMs / 10, acceptance: 2 }),
  })),
});

describe.skipIf(
  !hasTool(CHROMIUM, 'the HTML report in headless Chromium', 'Debian: apt-get install chromium'),
)('HTML report in headless Chromium', () => {
  it('loads with no console errors or network requests, shows every chart, and prints', async () => {
    const runs = [run('baseline', 1000), run('eagle3 <topk1>', 800)].map((r) => {
      const b = buildRun(r);
      return {
        name: r.name,
        dir: `/x/${r.name}`,
        manifest: b.manifest,
        summary: b.summary,
        records: b.records,
        warnings: [],
        // level 0 of the baseline carries server and GPU telemetry: three charts on one time axis
        telemetry:
          r.name === 'baseline'
            ? {
                0: {
                  server: {
                    intervalMs: 1000,
                    sources: { running: 'sglang:num_running_reqs' },
                    failedScrapes: 0,
                    samples: [0, 1, 2, 3].map((i) => ({
                      tMs: i * 1000,
                      values: { running: i, waiting: 3 - i, kvCacheUsage: i / 10 },
                    })),
                  },
                  gpu: {
                    available: true,
                    reason: null,
                    host: 'local',
                    intervalMs: 1000,
                    unreadableLines: 0,
                    samples: [0, 1, 2, 3].map((i) => ({
                      tMs: i * 1000,
                      gpu: 0,
                      utilizationPct: 50,
                      memoryUsedMiB: 1000,
                      powerW: 300 + i,
                      smClockMHz: 1900,
                      graphicsClockMHz: 1900,
                    })),
                  },
                },
              }
            : undefined,
      };
    });
    const drifted = {
      name: 'eagle3-drifted',
      reason: 'config "eagle3-drifted": the checkpoint failed (config.speculative.spec_v2); skipped.',
      evidence: [
        'config.speculative.spec_v2: Config speculative.spec_v2; expected true; found false (GET /server_info)',
      ],
    };
    const html = renderHtml(compareRuns(runs, { iterations: 100, skipped: [drifted] }));
    const file = join(dir, 'report.html');
    await writeFile(file, html);
    // a fresh user-data-dir per run (playwright passes it as --user-data-dir)
    const browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('request', (r) => {
        if (!r.url().startsWith('file:')) requests.push(r.url());
      });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
      // the first screen: the answer per load band beside the throughput chart, above the fold
      for (const id of ['#answer', '#first-chart svg']) {
        const b = await page.locator(id).boundingBox();
        expect(b, id).not.toBeNull();
        expect(b!.y + b!.height, id).toBeLessThan(800);
      }
      expect(await page.locator('#answer').textContent()).toContain('eagle3 <topk1>');
      // the config that never ran says why, with its evidence, in the HTML too
      expect(await page.locator('.skipped-config').textContent()).toContain(
        'expected true; found false (GET /server_info)',
      );
      const first = await page.screenshot({ path: join(dir, 'first-screen.png') });
      expect(first.length).toBeGreaterThan(10_000);
      const charts = await page.locator('figure.chart svg').count();
      expect(charts).toBe(1 + 5 + 3);
      expect(await page.locator('#chart-r0-telemetry-gpu-0 svg').isVisible()).toBe(true);
      const box = await page.locator('#chart-output-throughput svg').boundingBox();
      expect(box!.width).toBeGreaterThan(300);
      expect(await page.locator('h1').textContent()).toContain('eagle3 <topk1>');
      // validity first; the CSS-only metric selector shows one table at a time, goodput among them
      expect(await page.locator('#validity').isVisible()).toBe(true);
      expect(await page.locator('#table-ttft_p50').isVisible()).toBe(true);
      await page.locator('label[for="metric-goodput"]').click();
      expect(await page.locator('#table-goodput').isVisible()).toBe(true);
      expect(await page.locator('#table-ttft_p50').isVisible()).toBe(false);
      await page.locator('label[for="metric-all"]').click();
      const shot = await page.screenshot({ path: join(dir, 'report.png'), fullPage: true });
      expect(shot.length).toBeGreaterThan(10_000);
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 4).toString()).toBe('%PDF');
    } finally {
      await browser.close();
    }
  });
});
