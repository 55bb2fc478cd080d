// The live state of one running run directory, as the dashboard's live view shows it: the levels done
// (their summaries, drift verdicts and server telemetry, read when each level's files land), the level
// being measured (from the requests tail and the server telemetry scraped so far), the levels to come, ETAs, failed checkpoint checks and, inside
// a matrix, every config's status. Built from the run's files only (requests.jsonl, level-NN.json,
// telemetry-level-NN.json, and for the running level the samples scraped so far in
// telemetry-level-NN.live.jsonl, manifest.json, matrix-state.json).

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { LevelSummary } from '../metrics/summary.js';
import { percentileOfKey, supportedPercentile } from '../metrics/tail-samples.js';
import { levelLabel } from '../records/level-key.js';
import { liveTelemetryFile, type Manifest, telemetryFile, trialAt } from '../results/layout.js';
import { figuresOf, type LevelFigures, RequestsTail } from './live-tail.js';

export interface LiveLevel {
  index: number;
  label: string;
  status: 'done' | 'running' | 'to come';
  /** Done levels: from the level summary; the running level: from the requests so far. */
  figures: LevelFigures | null;
  total: number | null;
  /** Done levels: the level's stored judgement (as the finished run reports it), notes left out. */
  validity: { status: 'valid' | 'suspect' | 'invalid'; reasons: string[] } | null;
  telemetry: {
    running: number | null;
    waiting: number | null;
    kvCacheMax: number | null;
    acceptLength: number | null;
  } | null;
}

export interface LiveState {
  dir: string;
  name: string;
  startedAt: string | null;
  finished: boolean;
  /** Seconds since any of the run's files last changed. */
  idleS: number;
  levels: LiveLevel[];
  current: number | null;
  levelEtaS: number | null;
  runEtaS: number | null;
  /** Output tokens/s per second of the running level: [seconds into the level, tok/s]. */
  throughput: [number, number][];
  failedChecks: string[];
  drift: string[];
  matrix: { name: string; status: string; failure: string | null }[] | null;
}

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null; // not written yet, or being replaced (writes are atomic renames)
  }
}

const mtimeMs = (path: string) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

/** A matrix config's per-level run directory (<config>/levels/NN): the config's directory, else null. */
export function matrixConfigDir(dir: string): string | null {
  return basename(dirname(dir)) === 'levels' && /^\d+$/.test(basename(dir)) ? dirname(dirname(dir)) : null;
}

/** Level summaries written so far: the run's own, and for a matrix level, its sibling levels'. */
function doneLevels(dir: string): Map<number, { summary: LevelSummary; dir: string }> {
  const out = new Map<number, { summary: LevelSummary; dir: string }>();
  const config = matrixConfigDir(dir);
  const dirs = config ? readdirSync(join(config, 'levels')).map((d) => join(config, 'levels', d)) : [dir];
  for (const d of dirs) {
    let files: string[] = [];
    try {
      files = readdirSync(d).filter((f) => /^level-\d+\.json$/.test(f));
    } catch {}
    for (const f of files) {
      const s = readJson<LevelSummary>(join(d, f));
      if (s && typeof s.levelIndex === 'number') out.set(s.levelIndex, { summary: s, dir: d });
    }
  }
  return out;
}

type Sample = { values: Record<string, number | null> };

/** A level's /metrics samples: its telemetry file once written, else those scraped so far (the live file). */
function telemetrySamples(dir: string, index: number): Sample[] {
  const done = readJson<{ samples?: Sample[] }>(join(dir, telemetryFile(index)));
  if (done?.samples) return done.samples;
  let text = '';
  try {
    text = readFileSync(join(dir, liveTelemetryFile(index)), 'utf8');
  } catch {
    return [];
  }
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    try {
      const s = JSON.parse(line) as Sample;
      if (s && typeof s.values === 'object') out.push(s);
    } catch {} // the line being appended, or an empty last line
  }
  return out;
}

function telemetryOf(dir: string, index: number): LiveLevel['telemetry'] {
  const samples = telemetrySamples(dir, index);
  if (!samples.length) return null;
  const series = (k: string) =>
    samples.map((s) => s.values?.[k]).filter((v): v is number => typeof v === 'number');
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
  const accept = series('specAcceptLength');
  return {
    running: mean(series('running')),
    waiting: mean(series('waiting')),
    kvCacheMax: series('kvCacheUsage').length ? Math.max(...series('kvCacheUsage')) : null,
    acceptLength: accept.length ? accept[accept.length - 1] : null,
  };
}

/** The level's judgement as its file stores it (a file from before judgements: its recorded flag). */
function storedVerdict(s: LevelSummary): LiveLevel['validity'] {
  if (s.judgement)
    return {
      status: s.judgement.status,
      reasons: s.judgement.reasons.filter((r) => r.severity !== 'note').map((r) => r.text),
    };
  return { status: s.validity.valid ? 'valid' : 'invalid', reasons: s.validity.reasons };
}

function summaryFigures(s: LevelSummary): LevelFigures {
  const p = (d: LevelSummary['ttftMs'], k: string) => supportedPercentile(d, percentileOfKey(k) ?? 100);
  return {
    levelIndex: s.levelIndex,
    done: s.requests.completed + s.requests.failed,
    errors: s.requests.failed,
    errorsByCode: s.errorsByCode,
    outputTokensPerS: s.throughput.outputTokensPerS,
    ttftP50Ms: p(s.ttftMs, 'p50'),
    ttftP99Ms: p(s.ttftMs, 'p99'),
    itlP50Ms: p(s.tokenItlMs, 'p50'),
    itlP99Ms: p(s.tokenItlMs, 'p99'),
    ttftSamples: s.ttftMs?.count ?? 0,
    itlSamples: s.tokenItlMs?.count ?? 0,
    elapsedS: s.windowS,
  };
}

function throughputSeries(tail: RequestsTail, level: number): [number, number][] {
  const pts = tail.timeline.filter((p) => p.levelIndex === level);
  if (pts.length < 2) return [];
  const t0 = pts[0].tMs;
  const perS = new Map<number, number>();
  let prev = 0;
  for (const p of pts) {
    const s = Math.floor((p.tMs - t0) / 1000);
    perS.set(s, (perS.get(s) ?? 0) + (p.outputTokens - prev));
    prev = p.outputTokens;
  }
  return [...perS.entries()].sort((a, b) => a[0] - b[0]).slice(-180);
}

function matrixStatus(config: string | null): LiveState['matrix'] {
  if (!config) return null;
  const state = readJson<{
    configs?: Record<string, { status: string; failure: { message: string } | null }>;
  }>(join(dirname(config), 'matrix-state.json'));
  if (!state?.configs) return null;
  return Object.entries(state.configs).map(([name, c]) => ({
    name,
    status: c.status,
    failure: c.failure?.message ?? null,
  }));
}

/**
 * The levels a run sends, in order: the plan's levels once, or with load.trials N > 1 the sweep N times
 * (level i of trial t at index (t−1)·L + i, as bench and the matrix store them).
 */
function plannedLevels(
  load: { levels?: number[]; trials?: number } | undefined,
): { value: number; trial?: number }[] {
  const levels = load?.levels ?? [];
  const trials = Math.max(1, load?.trials ?? 1);
  return Array.from({ length: levels.length * trials }, (_, k) => {
    const t = trialAt(levels.length, trials, k);
    return t ? { value: levels[t.planLevel], trial: t.index } : { value: levels[k] };
  });
}

/** Follows one run directory; `state()` reads what is new and returns the whole picture. */
export class LiveRun {
  private readonly tail: RequestsTail;

  constructor(readonly dir: string) {
    this.tail = new RequestsTail(dir);
  }

  state(): LiveState {
    this.tail.poll();
    const manifest = readJson<Manifest>(join(this.dir, 'manifest.json'));
    const plan = manifest?.plan;
    const planned = plannedLevels(plan?.load);
    const done = doneLevels(this.dir);
    const config = matrixConfigDir(this.dir);
    const matrixLevel = config ? Number(basename(this.dir)) : null;
    const running = matrixLevel ?? planned.findIndex((_, i) => !done.has(i));
    const total = plan?.load?.requests ?? null;
    const kind = plan?.load?.kind === 'rate' ? 'rate' : 'concurrency';
    const levels: LiveLevel[] = planned.map(({ value, trial }, index) => {
      const d = done.get(index);
      const status = d ? 'done' : index === running ? 'running' : 'to come';
      const progress = this.tail.levels.get(index);
      return {
        index,
        label:
          levelLabel(
            d?.summary.level ?? { kind, value, maxConcurrency: plan?.load?.max_concurrency ?? null },
          ) + (trial ? ` trial ${trial}` : ''),
        status,
        figures: d
          ? summaryFigures(d.summary)
          : progress && status === 'running'
            ? figuresOf(progress)
            : null,
        total,
        validity: d ? storedVerdict(d.summary) : null,
        telemetry: d ? telemetryOf(d.dir, index) : status === 'running' ? telemetryOf(this.dir, index) : null,
      };
    });
    return {
      ...this.identity(manifest),
      levels,
      ...this.etas(levels, running),
      current: running >= 0 ? running : null,
      throughput: running >= 0 ? throughputSeries(this.tail, running) : [],
      failedChecks: failedChecks(manifest),
      drift: levels
        .filter((l) => l.validity?.status === 'invalid')
        .map((l) => `${l.label}: ${l.validity!.reasons.join('; ')}`),
      matrix: matrixStatus(config),
    };
  }

  private identity(manifest: Manifest | null) {
    const last = Math.max(...['manifest.json', 'requests.jsonl'].map((f) => mtimeMs(join(this.dir, f))));
    return {
      dir: this.dir,
      name: manifest?.name ?? basename(this.dir),
      startedAt: manifest?.startedAt ?? null,
      finished: Boolean(manifest?.finishedAt),
      idleS: last > 0 ? (Date.now() - last) / 1000 : 0,
    };
  }

  private etas(levels: LiveLevel[], running: number): { levelEtaS: number | null; runEtaS: number | null } {
    const cur = levels[running];
    const f = cur?.figures;
    if (!cur || !f || f.done === 0 || cur.total === null) return { levelEtaS: null, runEtaS: null };
    const levelEtaS = Math.max(0, ((cur.total - f.done) * f.elapsedS) / f.done);
    const levelS = (f.elapsedS * cur.total) / f.done;
    const toCome = levels.filter((l) => l.status === 'to come').length;
    return { levelEtaS, runEtaS: levelEtaS + toCome * levelS };
  }
}

function failedChecks(m: Manifest | null): string[] {
  return (m?.checkpoint?.findings ?? [])
    .filter((f) => f.status === 'fail')
    .map((f) => `${f.title}: expected ${f.expected ?? '?'}; found ${f.found ?? '?'}`);
}
