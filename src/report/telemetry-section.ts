// The server-telemetry section of a report: for every level of every run, what the server said about
// itself (KV-cache use, queue, failed scrapes) and what its GPUs drew, as one line for text and
// Markdown, the same figures for JSON, and charts beside the level's latency for HTML. A separate
// section, so each renderer only adds one call.

import type {
  LevelTelemetryFiles,
  LoadedRun,
  StoredGpuTelemetry,
  StoredServerTelemetry,
} from '../results/layout.js';
import { type ChartSpec, renderChartSvg } from './chart-svg.js';
import { formatValue } from './format.js';
import { levelLabel } from './levels.js';
import { telemetryChartSpecs } from './telemetry-chart.js';

export interface TelemetryRow {
  run: string;
  levelIndex: number;
  label: string;
  server: {
    /** False when no scrape of /metrics succeeded during the level. */
    exposed: boolean;
    samples: number;
    failedScrapes: number;
    kvCachePeakPct: number | null;
    kvCacheMeanPct: number | null;
    waitingPeak: number | null;
    runningPeak: number | null;
  } | null;
  gpu: {
    available: boolean;
    reason: string | null;
    gpus: number;
    /** nvidia-smi lines read (one per GPU per sample). */
    samples: number;
    meanPowerW: number | null;
    meanUtilizationPct: number | null;
    peakMemoryUsedMiB: number | null;
    unreadableLines: number;
  } | null;
  energyPerTokenJ: number | null;
  /** Why energy per token is unknown (null when known); said once per distinct reason under the lines. */
  energyNote: string | null;
  /** The level's one-line account (text and Markdown). */
  line: string;
  /** HTML only: server state, latency and GPU over the same seconds (render-json leaves them out). */
  charts: ChartSpec[];
}

const numbers = (t: StoredServerTelemetry, key: string) =>
  t.samples.map((s) => s.values[key]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
const peak = (xs: number[]) => (xs.length ? Math.max(...xs) : null);
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

function serverFigures(t: StoredServerTelemetry): NonNullable<TelemetryRow['server']> {
  const kv = numbers(t, 'kvCacheUsage').map((x) => x * 100);
  return {
    exposed: t.samples.length > 0,
    samples: t.samples.length,
    failedScrapes: t.failedScrapes,
    kvCachePeakPct: peak(kv),
    kvCacheMeanPct: mean(kv),
    waitingPeak: peak(numbers(t, 'waiting')),
    runningPeak: peak(numbers(t, 'running')),
  };
}

function gpuFigures(files: LevelTelemetryFiles): TelemetryRow['gpu'] {
  const g = files.gpu;
  if (!g) return null;
  const ids = new Set(g.samples.map((s) => s.gpu));
  const per = (pick: (s: StoredGpuTelemetry['samples'][number]) => number | null) =>
    g.samples.map(pick).filter((v): v is number => v !== null && Number.isFinite(v));
  const power = mean(per((s) => s.powerW));
  return {
    available: g.available,
    reason: g.reason,
    gpus: ids.size,
    samples: g.samples.length,
    // mean over lines × GPUs = the mean total draw of all GPUs
    meanPowerW: power === null ? null : power * ids.size,
    meanUtilizationPct: mean(per((s) => s.utilizationPct)),
    peakMemoryUsedMiB: peak(per((s) => s.memoryUsedMiB)),
    unreadableLines: g.unreadableLines,
  };
}

/**
 * Scrapes (or samples per GPU) a level needs before its peaks and means are shown: one or two readings
 * are a moment, not the level, and a single 0 would read as a confident "idle".
 */
export const MIN_TELEMETRY_SAMPLES = 3;

const pct = (x: number | null) => (x === null ? 'n/a' : `${x.toFixed(1)}%`);
const count = (x: number | null) => (x === null ? 'n/a' : String(Math.round(x)));
const fixed1 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(1));

function lineOf(row: Omit<TelemetryRow, 'line' | 'charts'>): string {
  const s = row.server;
  const server = !s
    ? 'no server telemetry recorded'
    : !s.exposed
      ? `the server exposed no /metrics (${s.failedScrapes} failed scrapes)`
      : s.samples < MIN_TELEMETRY_SAMPLES
        ? `only ${s.samples} /metrics scrape${s.samples === 1 ? '' : 's'} (≥${MIN_TELEMETRY_SAMPLES} needed to summarise KV cache and queue); ${s.failedScrapes} failed scrapes`
        : `KV-cache peak ${pct(s.kvCachePeakPct)}, mean ${pct(s.kvCacheMeanPct)}; queue (waiting) peak ${count(s.waitingPeak)}; running peak ${count(s.runningPeak)} (${s.samples} scrapes, ${s.failedScrapes} failed)`;
  const g = row.gpu;
  const perGpu = g && g.gpus > 0 ? Math.floor(g.samples / g.gpus) : 0;
  const gpu = !g
    ? 'no GPU telemetry recorded'
    : !g.available
      ? `no GPU telemetry (${g.reason ?? 'no samples'})`
      : perGpu < MIN_TELEMETRY_SAMPLES
        ? `${g.gpus} GPU${g.gpus === 1 ? '' : 's'}: only ${perGpu} nvidia-smi sample${perGpu === 1 ? '' : 's'} per GPU (≥${MIN_TELEMETRY_SAMPLES} needed to summarise power and utilisation)`
        : `${g.gpus} GPU${g.gpus === 1 ? '' : 's'}: mean power ${fixed1(g.meanPowerW)} W, utilisation ${pct(g.meanUtilizationPct)}, peak memory ${count(g.peakMemoryUsedMiB)} MiB (${perGpu} samples per GPU)${g.unreadableLines ? `, ${g.unreadableLines} unreadable nvidia-smi lines` : ''}`;
  const energy =
    row.energyPerTokenJ !== null
      ? `; ${formatValue(row.energyPerTokenJ)} J/output token`
      : row.energyNote
        ? '; energy per token unknown'
        : '';
  return `${row.run} level ${row.label}: ${server}; ${gpu}${energy}`;
}

/** One row per level of every run that stored telemetry (or a power figure); empty when none did. */
export function telemetryRows(runs: readonly LoadedRun[]): TelemetryRow[] {
  const rows: TelemetryRow[] = [];
  runs.forEach((run, ri) => {
    for (const level of run.summary.levels) {
      const files = run.telemetry?.[level.levelIndex] ?? { server: null, gpu: null };
      if (!files.server && !files.gpu && level.energy === undefined) continue;
      const base = {
        run: run.name,
        levelIndex: level.levelIndex,
        label: `${levelLabel(level.level)}${level.trial !== undefined ? ` trial ${level.trial}` : ''}`,
        server: files.server ? serverFigures(files.server) : null,
        gpu: gpuFigures(files),
        energyPerTokenJ: level.energyPerTokenJ ?? null,
        energyNote: level.energyPerTokenJ == null ? (level.energy?.reason ?? null) : null,
      };
      const charts = telemetryChartSpecs(
        level.levelIndex,
        files.server,
        run.records,
        files.gpu,
        `r${ri}-`,
        base.label,
      );
      rows.push({ ...base, line: lineOf(base), charts });
    }
  });
  return rows;
}

/** Each distinct reason energy per token is unknown, once, naming the levels when not all of them. */
function energyNotes(rows: readonly TelemetryRow[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const r of rows)
    if (r.energyNote)
      byReason.set(r.energyNote, [...(byReason.get(r.energyNote) ?? []), `${r.run} ${r.label}`]);
  return [...byReason].map(([reason, levels]) =>
    levels.length === rows.length
      ? `energy per token unknown at every level: ${reason}`
      : `energy per token unknown at ${levels.join(', ')}: ${reason}`,
  );
}

export function telemetryTextLines(rows: readonly TelemetryRow[] | undefined): string[] {
  if (!rows?.length) return [];
  return [
    '',
    'Server and GPU telemetry per level',
    ...rows.map((r) => `  ${r.line}`),
    ...energyNotes(rows).map((n) => `  ${n}`),
  ];
}

export function telemetryMarkdownLines(
  rows: readonly TelemetryRow[] | undefined,
  mdEscape: (s: string) => string,
): string[] {
  if (!rows?.length) return [];
  return [
    '',
    '## Server and GPU telemetry per level',
    '',
    ...rows.map((r) => `- ${mdEscape(r.line)}`),
    ...energyNotes(rows).map((n) => `- ${mdEscape(n)}`),
  ];
}

/** HTML: per level, the line, then its charts side by side on one time axis. */
export function telemetryHtml(rows: readonly TelemetryRow[] | undefined, esc: (s: string) => string): string {
  if (!rows?.length) return '';
  const parts = [
    '<h2 id="telemetry">Server and GPU telemetry per level</h2>',
    ...energyNotes(rows).map((n) => `<p class="muted">${esc(n)}</p>`),
  ];
  for (const r of rows) {
    parts.push(`<h3>${esc(r.run)} — level ${esc(r.label)}</h3>`, `<p class="muted">${esc(r.line)}</p>`);
    if (r.charts.length > 0)
      parts.push(
        `<div class="telemetry-row">${r.charts
          .map(
            (c) =>
              `<figure class="chart" id="chart-${esc(c.id)}">${renderChartSvg(c)}<figcaption class="muted">${esc(c.title)}</figcaption></figure>`,
          )
          .join('')}</div>`,
      );
  }
  return parts.join('\n');
}
