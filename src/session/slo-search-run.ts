// Drives load.kind: slo_search through a session: each probe the pure search (load/slo-search.ts)
// proposes runs as one level of the run (index after the last), sized to reach the sample floor of the
// required share within the plan's bounds, and is judged on its records (session/slo-probe.ts): did it
// hold its offered load over a steady window, and did enough of that window's requests meet the SLOs
// (the plan's, filled in from the named preset)? Every probe is kept as a level summary and the outcome,
// with each probe's evidence, is written to slo-search.json (results/slo-search-file.ts). `bench` runs
// every probe into one run store; the matrix passes its own probe runner (each probe its own level
// directory, checked for crashes and drift).

import { join } from 'node:path';
import { BenchgateError } from '../core/errors.js';
import { type ProbeOutcome, SloSearch, type SloSearchResult } from '../load/slo-search.js';
import { type SloAnswerInterval, sloAnswerInterval } from '../metrics/slo-answer-interval.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { SLO_PRESETS } from '../plan/slo-presets.js';
import { type LevelKey, levelLabel } from '../records/level-key.js';
import type { RequestRecord } from '../records/request-record.js';
import { REQUESTS_FILE } from '../results/layout.js';
import { forEachStoredRecord } from '../results/level-from-file.js';
import type { RunStore } from '../results/run-store.js';
import { writeSloSearchRecord } from '../results/slo-search-file.js';
import type { SloSearchProbeRecord } from '../results/slo-search-record.js';
import type { LevelOutcome, LevelValidity, Session } from './session.js';
import { judgeProbe, type ProbeJudgement, probeRequests } from './slo-probe.js';

export interface SloSearchRun {
  levels: LevelSummary[];
  result: SloSearchResult;
  interrupted: boolean;
}

type SearchSpec = NonNullable<Plan['load']['slo_search']>;

/** The SLOs a probe is judged by: the plan's, with the preset's limits for any the plan leaves out. */
export function searchSlo(plan: Plan): Plan['slo'] {
  const s = plan.load.slo_search;
  const preset = s?.preset ? SLO_PRESETS[s.preset] : null;
  const slo = { ...(preset ? { ttft_ms: preset.ttftMs, tpot_ms: preset.tpotMs } : {}), ...plan.slo };
  if (slo.ttft_ms === undefined && slo.tpot_ms === undefined && slo.e2e_ms === undefined) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      'load.kind slo_search needs an SLO: set slo.ttft_ms / tpot_ms / e2e_ms, or load.slo_search.preset.',
    );
  }
  return slo;
}

/** One probe: the level to run, the SLOs it is judged by, and its size. */
export interface ProbeRequest {
  level: LevelKey;
  slo: Plan['slo'];
  requests: number;
  durationMs: number;
}

/** Runs one probe as level `levelIndex`; the matrix supplies its own. */
export type ProbeRunner = (levelIndex: number, probe: ProbeRequest) => Promise<LevelOutcome>;

/** The search through one session into one run store (`bench`): every probe a level of the run. */
export async function runSloSearch(
  session: Session,
  store: RunStore,
  o: { signal?: AbortSignal; afterLevel?: (li: number) => Promise<LevelValidity>; note: (s: string) => void },
): Promise<SloSearchRun> {
  return searchThroughSession(session, {
    outDir: store.dir,
    signal: o.signal,
    note: o.note,
    requestsFile: () => join(store.dir, REQUESTS_FILE),
    runProbe: (li, probe) =>
      session.runLevel(li, { store, signal: o.signal, afterLevel: o.afterLevel, probe }),
  });
}

/** The measured records of level `levelIndex` in a requests.jsonl. */
async function probeRecords(file: string, levelIndex: number): Promise<RequestRecord[]> {
  const out: RequestRecord[] = [];
  await forEachStoredRecord(file, (r) => {
    if (r.levelIndex === levelIndex && !r.warmup) out.push(r);
  });
  return out;
}

const pct = (v: number) => `${Number((v * 100).toFixed(1))}%`;

/** The probe's level key, size and the line announcing it. */
function planProbe(
  plan: Plan,
  spec: SearchSpec,
  v: number,
  slo: Plan['slo'],
  retryOf: ProbeJudgement | undefined,
): { probe: ProbeRequest; line: string } {
  const level: LevelKey =
    spec.over === 'concurrency'
      ? { kind: 'concurrency', value: v }
      : { kind: 'rate', value: v, maxConcurrency: plan.load.max_concurrency ?? null };
  // a retry of an inconclusive probe: as many more as its steady window fell short of the floor, +10%
  const e = retryOf?.evidence;
  const grown = e?.floor ? Math.ceil((e.sent * e.floor * 1.1) / Math.max(1, e.samples)) : 0;
  const requests = probeRequests(level, {
    share: spec.share,
    atLeast: Math.max(plan.load.requests ?? 0, grown),
    maxRequests: spec.max_probe_requests,
    maxS: spec.max_probe_s,
  });
  const time = level.kind === 'rate' ? ` over ~${Math.round(requests / v)} s` : '';
  return {
    probe: { level, slo, requests, durationMs: spec.max_probe_s * 1000 },
    line: `benchgate: slo_search probe at ${levelLabel(level)}: ${requests} measured requests${time} (at most ${spec.max_probe_s} s).`,
  };
}

/** How the probe came out, judged on its records; a probe stopped by its error rate fails. */
async function judge(
  o: { requestsFile: (li: number) => string },
  li: number,
  r: LevelOutcome,
  probe: ProbeRequest,
  spec: SearchSpec,
): Promise<ProbeJudgement> {
  const records = await probeRecords(o.requestsFile(li), li);
  const j = judgeProbe(probe.level, records, {
    slo: probe.slo,
    share: spec.share,
    tolerance: spec.tolerance,
  });
  if (r.stop) return { ...j, outcome: 'fail', reason: `stopped by its error rate; ${j.reason}` };
  return j;
}

const outcomeWord = (o: ProbeOutcome) => (o === 'inconclusive' ? 'inconclusive' : o);

/** The search with a given probe runner; slo-search.json goes to `outDir` once the search ends or is interrupted. */
export async function searchThroughSession(
  session: Session,
  o: {
    outDir: string;
    runProbe: ProbeRunner;
    /** The requests.jsonl that holds probe `li`'s records. */
    requestsFile: (li: number) => string;
    signal?: AbortSignal;
    note: (s: string) => void;
  },
): Promise<SloSearchRun> {
  const plan = session.plan;
  const spec = plan.load.slo_search;
  if (!spec) throw new BenchgateError('BG_E_PLAN_INVALID', 'load.kind slo_search needs a slo_search: block.');
  const slo = searchSlo(plan);
  const search = new SloSearch({
    start: spec.start,
    precision: spec.precision,
    min: spec.min,
    max: spec.max,
    growth: spec.growth,
    maxProbes: spec.max_probes,
    integer: spec.over === 'concurrency',
  });
  const levels: LevelSummary[] = [];
  const judged: ProbeJudgement[] = [];
  let interrupted = false;
  for (let v = search.next(); v !== null; v = search.next()) {
    if (o.signal?.aborted) {
      interrupted = true;
      break;
    }
    const previous = judged.at(-1);
    const retryOf =
      previous?.outcome === 'inconclusive' && search.probes.at(-1)?.value === v ? previous : undefined;
    const { probe, line } = planProbe(plan, spec, v, slo, retryOf);
    o.note(line);
    const li = levels.length;
    const r = await o.runProbe(li, probe);
    levels.push(r.summary);
    if (r.interrupted) {
      interrupted = true;
      break;
    }
    if (r.stop?.endsRun) {
      // a dead server, or one that failed the checkpoint after a drift: later probes would measure nothing true
      o.note(`benchgate: slo_search ends unfinished: ${r.stop.message} [${r.stop.code}]`);
      interrupted = true;
      break;
    }
    const j = await judge(o, li, r, probe, spec);
    judged.push(j);
    search.report(v, j.share, j.outcome, j.evidence.offered);
    o.note(`benchgate: slo_search at ${levelLabel(probe.level)}: ${outcomeWord(j.outcome)}: ${j.reason}.`);
  }
  const result = search.result();
  const interval = answerInterval(judged, spec.share);
  writeSloSearchRecord(o.outDir, {
    over: spec.over,
    requiredShare: spec.share,
    slo,
    preset: spec.preset ?? null,
    precision: spec.precision,
    tolerance: spec.tolerance,
    ...result,
    interval,
    probes: result.probes.map(
      (p, i): SloSearchProbeRecord => ({ ...p, reason: judged[i]?.reason, evidence: judged[i]?.evidence }),
    ),
    interrupted,
  });
  o.note(finalLine(spec, result, interval, interrupted));
  return { levels, result, interrupted };
}

/** The answer's interval over every judged probe (metrics/slo-answer-interval.ts). */
function answerInterval(judged: readonly ProbeJudgement[], share: number): SloAnswerInterval {
  return sloAnswerInterval(
    judged.map((j) => ({
      offered: j.evidence.offered,
      samples: j.evidence.samples,
      met: j.evidence.met,
      // a probe its error rate stopped held nothing
      sustained: j.evidence.sustained && !j.reason.startsWith('stopped by its error rate'),
    })),
    share,
  );
}

const num = (v: number | null) => (v === null ? 'none' : String(Number(v.toPrecision(4))));

function finalLine(
  spec: SearchSpec,
  result: SloSearchResult,
  interval: SloAnswerInterval,
  interrupted: boolean,
): string {
  const range =
    interval.low !== null && interval.high !== null
      ? `; 95% interval ${num(interval.low)}–${num(interval.high)} over ${interval.probes} probes`
      : '';
  const confirmed = result.best !== null && !result.confirmed ? '; not confirmed by a second probe' : '';
  const pairs = result.nonMonotonic.map((p) => `${p.failedAt} failed below a pass at ${p.passedAt}`);
  const nonMono = pairs.length ? `; not monotonic: ${pairs.join(', ')} (both re-probed)` : '';
  return `benchgate: slo_search: highest ${spec.over} sustained with ${pct(spec.share)} of requests meeting the SLOs: ${num(result.best)} offered (lowest failing: ${num(result.firstFail)}${range}${confirmed}; stopped by ${interrupted ? 'an interruption' : result.stoppedBy}${nonMono}).`;
}
