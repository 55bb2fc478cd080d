// Drives the real CLI (compare, report, import) as a child process against run directories on disk.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { specs, writeRunDir } from '../../report/test-support.js';
import { cliNodeArgs } from '../test-support/cli-argv.js';

const run = promisify(execFile);
const root = await mkdtemp(join(tmpdir(), 'bg-cli-compare-'));
afterAll(() => rm(root, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [...cliNodeArgs(), ...args], {
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 32 << 20,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

const levels = (e2eMs: number) =>
  [1, 4].map((c) => ({ concurrency: c, specs: specs(20, { e2eMs, ttftMs: e2eMs / 10 }) }));

describe('benchgate compare / report / import', () => {
  it('compares two runs, prints verdicts, and writes the HTML report and charts to --out', async () => {
    const a = await writeRunDir(root, { name: 'base', levels: levels(1000) });
    const b = await writeRunDir(root, { name: 'fast', levels: levels(700) });
    const out = join(root, 'out');
    // one trial each: a run-to-run spread measured elsewhere lets compare draw verdicts
    const r = await cli('compare', a, b, '--out', out, '--iterations', '200', '--run-noise', '1');
    expect(r.stderr).toContain('wrote');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      'fast has higher output throughput than base at every concurrency tested (1–4)',
    );
    expect(r.stdout).not.toMatch(/\x1b\[/);
    for (const f of [
      'report.html',
      'compare.json',
      'compare.txt',
      'charts/output-throughput.svg',
      'charts/output-throughput.png',
      'charts/ttft.png',
      'charts/tradeoff.png',
      'charts/acceptance-length.svg',
    ]) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    const json = JSON.parse(await readFile(join(out, 'compare.json'), 'utf8'));
    expect(json.schema).toBe('benchgate.compare/1');
    const csv = await cli(
      'compare',
      a,
      b,
      '--format',
      'csv',
      '--baseline',
      'fast',
      '--metric',
      'ttft_p50',
      '--iterations',
      '50',
    );
    // after the cached share per level, the metric rows; no prose row (the summary goes to stderr)
    const lines = csv.stdout.trim().split('\n');
    const columns = (l: string) => l.replace(/"(?:[^"]|"")*"/g, '').split(',').length;
    for (const l of lines) expect(columns(l), l).toBe(columns(lines[0]));
    expect(csv.stdout).not.toMatch(/^[a-z]*,[^,]*,summary,/m);
    expect(csv.stderr).toContain('fast');
    const rows = lines.filter((l) => !/^[a-z]*,[^,]*,cached_share,/.test(l));
    expect(rows[1]).toMatch(/^(valid|suspect),[^,]*,ttft_p50,ms,concurrency,1,c=1,base,false,/);
    const page = await cli(
      'compare',
      a,
      b,
      '--format',
      'html',
      '--out',
      join(root, 'html-out'),
      '--iterations',
      '50',
    );
    expect(page.code, page.stderr).toBe(0);
    expect(page.stdout).toBe(`${join(root, 'html-out', 'report.html')}\n`);
    expect(existsSync(join(root, 'html-out', 'report.html'))).toBe(true);
  });

  it('accepts --metric goodput, --min-effect and --allow-different-workloads', async () => {
    const slo = { requestsPerS: 1.5, fraction: 0.75, slo: { ttft_ms: 200 } };
    const withSlo = (e2eMs: number) =>
      levels(e2eMs).map((l) => ({ ...l, summaryExtra: { goodput: { ...slo, requestsPerS: 1000 / e2eMs } } }));
    const a = await writeRunDir(root, {
      name: 'g-long',
      levels: withSlo(1000),
      workload: { input_tokens: { fixed: 1024 } },
    });
    const b = await writeRunDir(root, {
      name: 'g-short',
      levels: withSlo(700),
      workload: { input_tokens: { fixed: 256 } },
    });
    const refused = await cli(
      'compare',
      a,
      b,
      '--metric',
      'goodput',
      '--format',
      'json',
      '--iterations',
      '50',
    );
    expect(refused.code).toBe(0);
    const doc = JSON.parse(refused.stdout);
    expect(doc.metrics).toEqual(['goodput']);
    expect(doc.levels[0].cells.goodput[0].value).toBeCloseTo(1, 9);
    expect(doc.verdicts).toEqual([]);
    expect(doc.verdictsWithheld).toContain('different workloads');
    const allowed = await cli(
      'compare',
      a,
      b,
      '--metric',
      'goodput',
      '--allow-different-workloads',
      '--min-effect',
      '5%',
      '--iterations',
      '50',
      '--run-noise',
      '0.5',
    );
    expect(allowed.stdout).toContain('g-short has higher goodput than g-long');
    const bad = await cli('compare', a, b, '--min-effect', 'lots');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--min-effect expects a percentage from 0 to 100');
  });

  it('reports a single run', async () => {
    const a = await writeRunDir(root, { name: 'solo', levels: levels(500) });
    const r = await cli('report', a, '--format', 'markdown');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('| c=4 |');
  });

  it('gives one clear sentence for a directory that is not a run, and for bad flags', async () => {
    const empty = join(root, 'empty');
    await mkdir(empty);
    const r = await cli('compare', empty, '--iterations', '10');
    expect(r.code).toBe(2);
    const missing = await cli('report', join(root, 'no-such-run'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nothing is there');
    expect(r.stderr).toMatch(/^benchgate: Expected a benchgate run in .* \[BG_E_RUN_DIR\]\n$/);
    const f = await cli('report', root, '--format', 'pdf');
    expect(f.code).toBe(2);
    expect(f.stderr).toContain('--format expects one of text, markdown, json, csv, html; found "pdf"');
  });

  it('imports an SGLang JSONL file and refuses a file of the wrong kind', async () => {
    const file = join(root, 'sglang.jsonl');
    const line = {
      backend: 'sglang',
      dataset_name: 'random',
      request_rate: 0,
      max_concurrency: 2,
      random_input_len: 8,
      random_output_len: 4,
      duration: 2,
      completed: 4,
      total_input_tokens: 32,
      total_output_tokens: 16,
      request_throughput: 2,
      input_throughput: 16,
      output_throughput: 8,
      mean_e2e_latency_ms: 900,
      median_e2e_latency_ms: 900,
      std_e2e_latency_ms: 1,
      p99_e2e_latency_ms: 950,
      mean_ttft_ms: 100,
      median_ttft_ms: 100,
      std_ttft_ms: 1,
      p99_ttft_ms: 110,
      mean_tpot_ms: 50,
      median_tpot_ms: 50,
      std_tpot_ms: 1,
      p99_tpot_ms: 60,
      mean_itl_ms: 50,
      median_itl_ms: 50,
      std_itl_ms: 1,
      p95_itl_ms: 55,
      p99_itl_ms: 60,
      concurrency: 1.8,
      accept_length: null,
    };
    await writeFile(file, `${JSON.stringify(line).replace('"request_rate":0', '"request_rate":Infinity')}\n`);
    const r = await cli('import', file, '--from', 'sglang', '--out', join(root, 'imported'));
    expect(r.code).toBe(0);
    const dir = r.stdout.trim();
    expect(JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')).source.tool).toBe(
      'sglang-bench-serving',
    );
    const report = await cli('report', dir);
    expect(report.code).toBe(0);
    expect(report.stdout).toContain('imported from sglang-bench-serving');
    // the store lists it as a finished run of the engine its backend names, not "incomplete" with engine "-"
    const stored = await cli('runs', '--results', join(root, 'imported'), '--format', 'json');
    expect(stored.code, stored.stderr).toBe(0);
    expect(JSON.parse(stored.stdout)[0]).toMatchObject({ engine: 'sglang', status: 'finished' });
    const wrong = await cli('import', file, '--from', 'vllm', '--out', join(root, 'imported'));
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('[BG_E_IMPORT]');
    expect(wrong.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('report and compare take --json like every other command', async () => {
    const a = await writeRunDir(root, { name: 'json-a', levels: levels(500) });
    const b = await writeRunDir(root, { name: 'json-b', levels: levels(400) });
    const r = await cli('report', a, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).schema).toBe('benchgate.compare/1');
    const c = await cli('compare', a, b, '--json', '--iterations', '50');
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout).runs.map((x: { name: string }) => x.name)).toEqual(['json-a', 'json-b']);
    const clash = await cli('report', a, '--json', '--format', 'csv');
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('--json is --format json; it cannot be used with --format csv');
  });

  it('report on a results folder says it is not a run directory and how many runs it holds', async () => {
    const folder = join(root, 'folder');
    await writeRunDir(folder, { name: 'one', levels: levels(500) });
    await writeRunDir(folder, { name: 'two', levels: levels(500) });
    const r = await cli('report', folder);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not a run directory; it holds 2 runs \(.*one.*two.*\)\. Report one of them/);
    expect(r.stderr).not.toContain('share no load level');
  });

  it('imports a pasted vLLM result table (--from auto) and every report marks it summary only', async () => {
    const table = new URL('../../results/fixtures/import/vllm-2026-02-printed.txt', import.meta.url).pathname;
    const r = await cli('import', table, '--out', join(root, 'printed'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'summary only: imported from the result table printed in vllm-2026-02-printed.txt',
    );
    const dir = r.stdout.trim();
    for (const format of ['text', 'markdown', 'html', 'json']) {
      const rep = await cli('report', dir, '--format', format);
      expect(rep.code, rep.stderr).toBe(0);
      expect(rep.stdout).toContain('summary only');
    }
  });
});
