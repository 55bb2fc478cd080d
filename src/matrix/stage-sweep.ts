// The sweep stage: one session of the ready server (detection, smoke, tokenizer, one clock anchor), then
// the plan's remaining levels one at a time (with load.trials, this visit's trial of them, tagged), or
// the SLO search's probes, each in its own levels/NN/ run directory and checked after it: a crash line,
// an exited server, drift or an invalid level fails the config and keeps nothing of that level; a kept
// level is saved in the state at once.

import { rm } from 'node:fs/promises';
import { monoNowMs } from '../core/clock.js';
import { levelKeyOf, levelLabel } from '../load/level-label.js';
import type { LevelSummary } from '../metrics/summary.js';
import { levelRunDir } from './assemble-run.js';
import { ConfigFailed, type ConfigRun, codeOf, fail } from './config-run.js';
import type { LaunchedServer } from './launch.js';
import { runConfigSearch } from './slo-search-stage.js';
import { need } from './stage-launch.js';
import { sweepOneLevel } from './sweep-level.js';
import { levelName, levelsLeft, levelValueOf, trialTag } from './trials.js';

/** Evidence from the server's output: its crash line, else its last lines. */
function serverEvidence(server: LaunchedServer, lines: number): string[] {
  const crash = server.log.crashHit;
  return crash
    ? [`server output line ${crash.line}:`, ...crash.excerpt.split('\n')]
    : server.log.excerpt(lines);
}

/** What the levels of this config are checked with: after each level, and before one is kept. */
function levelChecks(r: ConfigRun) {
  const { config, m } = r;
  const server = need(r.server, 'a launched server');
  const host = need(r.host, 'a host');
  const verifiedTarget = need(need(r.checkpoint, 'a passed checkpoint').verifiedTarget, 'a verified target');
  const afterLevel = async (): Promise<{ valid: boolean; reasons: string[] }> => {
    const crash = server.log.crashHit;
    const reasons = crash ? [`the server logged a crash at output line ${crash.line}`] : [];
    const drift = await m.stages.driftCheck({ plan: config.plan, host, verifiedTarget });
    return { valid: reasons.length === 0 && drift.valid, reasons: [...reasons, ...drift.reasons] };
  };
  const failedWith = (e: unknown, what: string): never => {
    if (e instanceof ConfigFailed) throw e;
    return fail(
      'sweep',
      codeOf(e, 'BG_E_INTERNAL'),
      `config "${config.name}": ${what} failed: ${(e as Error).message}`,
      serverEvidence(server, 8),
    );
  };
  /** After a level (or probe) is written: kept only when the server is alive, uncrashed and the level valid. */
  const keepLevel = async (
    idx: number,
    summary: LevelSummary,
    what: string,
    startedMs: number,
    tolerated: readonly string[] = [],
  ): Promise<void> => {
    m.progress('');
    const crash = server.log.crashHit;
    const exited = await Promise.race([
      server.proc.exited.then(() => true),
      new Promise<boolean>((res) => setImmediate(() => res(false))),
    ]);
    if (crash || exited)
      fail(
        'sweep',
        'BG_E_LAUNCH',
        `config "${config.name}": the server ${crash ? `logged a crash at output line ${crash.line}` : 'exited'} during ${what}; the level is not kept.`,
        crash ? crash.excerpt.split('\n') : server.log.excerpt(12),
      );
    const reasons = summary.validity.reasons.filter((x) => !tolerated.includes(x));
    if (!summary.validity.valid && reasons.length > 0)
      fail(
        'sweep',
        'BG_E_CHECK_FAILED',
        `config "${config.name}": ${what} is invalid (${reasons.join('; ')}); it is not kept and later ${r.search ? 'probes' : 'levels'} are not run.`,
        reasons,
      );
    const st = r.st;
    st.completedLevels = [...st.completedLevels, idx].sort((x, y) => x - y);
    st.measured = {
      ...st.measured,
      levelS: { ...st.measured?.levelS, [idx]: (monoNowMs() - startedMs) / 1000 },
    };
    await m.save();
  };
  return { afterLevel, failedWith, keepLevel };
}

/** Opens the config's one session of the server (once: a repeated sweep reuses it). */
async function openConfigSession(r: ConfigRun) {
  const { config, m } = r;
  try {
    return await m.stages.openSession({
      plan: config.plan,
      planPath: m.planPath,
      checkpoint: need(r.checkpoint, 'a passed checkpoint'),
      onProgress: (l: string) => m.progress(`  ${config.name}: ${l}`),
      signal: m.signal,
    });
  } catch (e) {
    return fail(
      'sweep',
      codeOf(e, 'BG_E_INTERNAL'),
      `config "${config.name}": could not prepare the sweep: ${(e as Error).message}`,
      need(r.server, 'a launched server').log.excerpt(8),
    );
  }
}

/** The sweep: the plan's remaining levels, or the SLO search, through the config's one session. */
export async function sweep(r: ConfigRun): Promise<void> {
  const { m, config } = r;
  r.session ??= await openConfigSession(r);
  const session = r.session;
  const checks = levelChecks(r);
  if (r.search) {
    const search = { session, configDir: r.dir, signal: m.signal, log: m.log, nowMs: monoNowMs, ...checks };
    await runConfigSearch(search).catch((e) => checks.failedWith(e, 'the SLO search'));
    r.st.searchCompleted = true;
    await m.save();
    return;
  }
  // re-read here: a checkpoint that superseded the kept levels sends every trial so far round again
  r.levelsToRun = levelsLeft(m.plan, r.trial, r.st.completedLevels);
  for (const idx of r.levelsToRun) {
    const value = levelValueOf(m.plan, idx);
    const what = levelName(m.plan, idx);
    if (m.signal.aborted)
      fail('sweep', 'BG_E_ABORTED', `config "${config.name}": interrupted before ${what}.`);
    const runDir = levelRunDir(r.dir, idx);
    await rm(runDir, { recursive: true, force: true });
    const trial = trialTag(m.plan, idx);
    m.log(
      `  level ${levelLabel(levelKeyOf(m.plan.load, value as number))}${trial ? ` (trial ${trial.index})` : ''}`,
    );
    const startedMs = monoNowMs();
    const outcome = await sweepOneLevel(session, idx, runDir, m.signal, checks.afterLevel, { trial }).catch(
      (e) => checks.failedWith(e, what),
    );
    await checks.keepLevel(idx, outcome.summary, what, startedMs);
  }
}
