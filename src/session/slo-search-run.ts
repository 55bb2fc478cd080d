// Drives load.kind: slo_search through a session: each probe the pure search (load/slo-search.ts)
// proposes runs as one level of the run (index after the last), judged against the plan's SLOs filled
// in from the named preset; every probe is kept as a level summary and the outcome is written to
// slo-search.json (results/slo-search-file.ts). `bench` runs every probe into one run store; the matrix
// passes its own probe runner (each probe its own level directory, checked for crashes and drift).

import { BenchgateError } from '../core/errors.js';
import { SloSearch, type SloSearchResult } from '../load/slo-search.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';
import { SLO_PRESETS } from '../plan/slo-presets.js';
import { type LevelKey, levelLabel } from '../records/level-key.js';
import type { RunStore } from '../results/run-store.js';
import { writeSloSearchRecord } from '../results/slo-search-file.js';
import type { LevelOutcome, LevelValidity, Session } from './session.js';

export interface SloSearchRun {
  levels: LevelSummary[];
  result: SloSearchResult;
  interrupted: boolean;
}

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

/** Runs one probe as level `levelIndex`, judged by `probe.slo`; the matrix supplies its own. */
export type ProbeRunner = (
  levelIndex: number,
  probe: { level: LevelKey; slo: Plan['slo'] },
) => Promise<LevelOutcome>;

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
    runProbe: (li, probe) =>
      session.runLevel(li, { store, signal: o.signal, afterLevel: o.afterLevel, probe }),
  });
}

/** The search with a given probe runner; slo-search.json goes to `outDir` once the search ends or is interrupted. */
export async function searchThroughSession(
  session: Session,
  o: { outDir: string; runProbe: ProbeRunner; signal?: AbortSignal; note: (s: string) => void },
): Promise<SloSearchRun> {
  const plan = session.plan;
  const spec = plan.load.slo_search;
  if (!spec) throw new BenchgateError('BG_E_PLAN_INVALID', 'load.kind slo_search needs a slo_search: block.');
  const slo = searchSlo(plan);
  const concurrency = spec.over === 'concurrency';
  const search = new SloSearch({
    start: spec.start,
    precision: spec.precision,
    min: spec.min,
    max: spec.max,
    growth: spec.growth,
    maxProbes: spec.max_probes,
    integer: concurrency,
  });
  const levels: LevelSummary[] = [];
  let interrupted = false;
  let cappedNoted = false;
  for (let v = search.next(); v !== null; v = search.next()) {
    if (o.signal?.aborted) {
      interrupted = true;
      break;
    }
    const sent = plan.load.requests;
    if (concurrency && sent !== undefined && v > sent && !cappedNoted) {
      cappedNoted = true;
      o.note(
        `benchgate: slo_search: probes above concurrency ${sent} send only load.requests = ${sent} measured requests, so they never hold more than ${sent} in flight; raise --requests (load.requests in a plan), or set load.slo_search.max, to measure them.`,
      );
    }
    const level: LevelKey = concurrency
      ? { kind: 'concurrency', value: v }
      : { kind: 'rate', value: v, maxConcurrency: plan.load.max_concurrency ?? null };
    const r = await o.runProbe(levels.length, { level, slo });
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
    const share = r.summary.goodput?.fraction ?? 0;
    // a probe stopped by its error rate fails whatever share of the requests it sent met the SLOs
    const passed = share >= spec.share && r.stop === null;
    search.report(v, share, passed);
    o.note(
      `benchgate: slo_search at ${levelLabel(level)}: ${(share * 100).toFixed(1)}% met the SLOs (${passed ? 'pass' : r.stop ? 'fail: stopped by its error rate' : 'fail'}).`,
    );
  }
  const result = search.result();
  writeSloSearchRecord(o.outDir, {
    over: spec.over,
    requiredShare: spec.share,
    slo,
    preset: spec.preset ?? null,
    precision: spec.precision,
    ...result,
    interrupted,
  });
  o.note(
    `benchgate: slo_search: highest ${spec.over} meeting the SLOs for ${(spec.share * 100).toFixed(1)}% of requests: ${result.best ?? 'none'} (lowest failing: ${result.firstFail ?? 'none'}; stopped by ${interrupted ? 'an interruption' : result.stoppedBy}).`,
  );
  return { levels, result, interrupted };
}
