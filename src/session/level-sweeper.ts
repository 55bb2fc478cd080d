// Sweeping a session, one level at a time: the level is prepared (level-prepare.ts), its telemetry
// started (level-telemetry.ts), its requests sent in this thread or over worker threads (level-send.ts)
// with every record appended to the run store as it completes, then the drift check after it, the
// level's stop judged (level-stop.ts) and its summary computed from the stored records. Record ids
// continue across the levels of a session.

import { join } from 'node:path';
import type { StreamTimeouts } from '../client/stream-request.js';
import type { ClockAnchor } from '../core/clock.js';
import { scrapeSpecCounters } from '../engines/index.js';
import type { TargetHttp, VerifiedTarget } from '../engines/types.js';
import { levelWords } from '../load/level-label.js';
import { TurnAccumulator } from '../metrics/multi-turn.js';
import { prefixHitNote, prefixHitRates } from '../metrics/prefix-hits.js';
import type { RequestRecord } from '../records/request-record.js';
import { prefixCacheFile, REQUESTS_FILE } from '../results/layout.js';
import { judgeStoredLevel, summarizeStoredLevel } from '../results/level-from-file.js';
import { writeJsonAtomic } from '../results/run-store.js';
import { validityContext } from '../results/run-validity.js';
import { flushBeforeLevel } from './level-cache-flush.js';
import { type PrepareContext, type PreparedLevel, prepareLevel } from './level-prepare.js';
import { sendLevel } from './level-send.js';
import { judgeLevelStop } from './level-stop.js';
import { type LevelProbe, levelTelemetry } from './level-telemetry.js';
import type { LevelOutcome, LevelValidity, RunLevelOptions, Session } from './session-types.js';

export interface SweepContext extends PrepareContext {
  url: string;
  headers: Record<string, string>;
  timeouts: StreamTimeouts;
  http: TargetHttp;
  anchor: ClockAnchor;
  /** The checkpoint's verified target (a speculative decoder changes the level's judgement); null without one. */
  verifiedTarget: VerifiedTarget | null;
}

/** What one level's sending left: the runner's result, the client self-check, the record tallies. */
type Sent = Awaited<ReturnType<typeof sendLevel>> & {
  turns: TurnAccumulator | null;
  sawError: boolean;
};

/** Sends the prepared level, every record to the store, the progress view and the tallies. */
async function sendPrepared(
  c: SweepContext,
  p: PreparedLevel,
  o: RunLevelOptions,
  telemetry: LevelProbe,
  nextId: () => number,
): Promise<Sent> {
  const conv = p.work.conversations;
  const turns = conv ? new TurnAccumulator() : null;
  let sawError = false;
  // in this thread, or over load.workers worker threads (level-send.ts)
  const sent = await sendLevel({
    shape: p.shape,
    workers: c.plan.load.workers,
    url: c.url,
    headers: c.headers,
    timeouts: c.timeouts,
    anchor: c.anchor,
    built: p.built,
    prompts: p.work.prompts,
    inFlight: p.inFlight,
    nextId,
    signal: o.signal,
    onMeasuredStart: () => telemetry.measuredStarted(),
    conversations: conv
      ? {
          driver: conv,
          requestFor: (t) => c.adapter.requestFor({ ...c.params(t.message), messages: t.messages }),
        }
      : null,
    onRecord: (r: RequestRecord) => {
      o.store.appendRecord(r);
      c.progress.record(r);
      turns?.add(r);
      if (r.error !== null) sawError = true;
    },
  });
  return { ...sent, turns, sawError };
}

/** The per-level sweep of a session; record ids continue across levels. */
export function levelSweeper(c: SweepContext): Session['runLevel'] {
  const { plan } = c;
  let nextId = 0;
  /** The previous level had failed requests or was invalid (a restart, say): check the server first. */
  let troubled = false;
  const telemetryOf = levelTelemetry(c);
  return async (li, o): Promise<LevelOutcome> => {
    const p = await prepareLevel(c, li, o, troubled);
    const key = p.shape.level;
    const before = await scrapeSpecCounters(c.http, c.adapter);
    // an SLO-search probe counts against max_probes, not the plan's levels: "probe 3/11"
    const [count, unit] = o.probe
      ? [plan.load.slo_search?.max_probes ?? li + 1, 'probe' as const]
      : [plan.load.levels.length * (o.trial ? plan.load.trials : 1), 'level' as const];
    c.progress.levelStarted(li, count, levelWords(key), p.work.requests, p.shape.durationMs, unit);
    const flush = await flushBeforeLevel({ ...c, http: c.rawHttp }, levelWords(key));
    const telemetry = await telemetryOf.start(li, o.store.dir);
    await o.beforeSend?.();
    const sent = await sendPrepared(c, p, o, telemetry, () => nextId++).catch(async (e: unknown) => {
      // a failed level (a load worker's error) stops its sampling too: no timer outlives the run
      await telemetry.stop(o.store.dir).catch(() => undefined);
      c.progress.levelDone();
      throw e;
    });
    const server = await telemetry.stop(o.store.dir);
    c.progress.levelDone();
    const { result } = sent;
    const interrupted = result.interrupted;
    const after = await scrapeSpecCounters(c.http, c.adapter);
    const validity: LevelValidity =
      o.afterLevel && !interrupted ? await o.afterLevel(li) : { valid: true, reasons: [] };
    if (interrupted) validity.reasons.push('interrupted before the level finished');
    const stop = judgeLevelStop({
      level: levelWords(key),
      errorStop: result.errorStop,
      threshold: plan.load.error_stop.rate,
      validity,
      progress: c.progress,
    });
    const summary = await summarizeStoredLevel(join(o.store.dir, REQUESTS_FILE), {
      levelIndex: li,
      level: key,
      percentiles: plan.percentiles,
      slo: o.probe?.slo ?? plan.slo,
      inFlightAtEnd: result.inFlightAtEnd,
      specCounters: { before, after, source: 'metrics-counters' },
      power: server.power,
      cache: { counters: server.prefixCounters, expectedShare: p.work.expectedHitRate, flush },
      client: sent.self,
      validity: interrupted ? { valid: false, reasons: validity.reasons } : validity,
    });
    const byTurn = sent.turns?.finish(plan.percentiles);
    if (byTurn) summary.multiTurn = byTurn;
    if (o.trial) summary.trial = o.trial.index;
    // the level's one validity judgement, stored in its file for every surface (the live view included)
    summary.judgement = await judgeStoredLevel(
      join(o.store.dir, REQUESTS_FILE),
      summary,
      validityContext(plan, c.verifiedTarget),
    );
    o.store.writeLevel(summary);
    const prefixCache =
      p.work.expectedHitRate === null ? null : prefixHitRates(p.work.expectedHitRate, summary.cache);
    if (prefixCache) {
      c.progress.note(prefixHitNote(prefixCache));
      writeJsonAtomic(join(o.store.dir, prefixCacheFile(li)), { levelIndex: li, ...prefixCache });
    }
    troubled = !summary.validity.valid || sent.sawError;
    return { summary, interrupted, prefixCache, stop };
  };
}
