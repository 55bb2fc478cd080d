// The stages that judge a ready server before any load: the checkpoint with the config's own
// expectations (a failed one skips the config with the failing findings and any crash line as
// evidence; a server reporting another configuration than the kept levels' supersedes them), and,
// with a plan lossless: section, the greedy answers the matrix later compares across configs.

import { gateFailed } from '../checkpoint/finding.js';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import { readLosslessAnswers } from '../results/lossless-file.js';
import { type ConfigRun, fail } from './config-run.js';
import type { LogTail } from './log-tail.js';
import { collectConfigAnswers, losslessEnabled } from './lossless-stage.js';
import { supersede } from './resume-config.js';
import { need } from './stage-launch.js';
import { decideAfterCheckpoint, verifiedConfigHash } from './state.js';

/** The failed findings, one line each, and the crash line the server logged meanwhile. */
function checkpointEvidence(checkpoint: CheckpointOutcome, log: LogTail): string[] {
  const evidence = gateFailed(checkpoint.report.findings).map(
    (f) =>
      `${f.id}: ${f.title}${f.expected ? `; expected ${f.expected}` : ''}${f.found ? `; found ${f.found}` : ''}${f.evidence[0] ? ` (${f.evidence[0].where})` : ''}`,
  );
  const crash = log.crashHit;
  if (crash) evidence.push(`server output line ${crash.line}:`, ...crash.excerpt.split('\n'));
  return evidence;
}

/** The checkpoint with the config's own expectations; its verified configuration is kept in the state. */
export async function verify(r: ConfigRun): Promise<void> {
  const { config, m, st } = r;
  const server = need(r.server, 'a launched server');
  const checkpoint = await m.stages.checkpoint({
    plan: config.plan,
    host: need(r.host, 'a host'),
    signal: m.signal,
    onProgress: (l) => m.progress(`  ${config.name}: ${l}`),
  });
  r.checkpoint = checkpoint;
  m.progress('');
  m.print(m.stages.renderChecklist(checkpoint.report, config.name));
  if (!checkpoint.report.ok || !checkpoint.verifiedTarget) {
    const failed = gateFailed(checkpoint.report.findings);
    fail(
      'checkpoint',
      'BG_E_CHECK_FAILED',
      `config "${config.name}": the checkpoint failed (${failed.map((f) => f.id).join(', ') || 'no verified target'}); skipped.`,
      checkpointEvidence(checkpoint, server.log),
    );
  }
  const hash = verifiedConfigHash(checkpoint.verifiedTarget);
  const after = decideAfterCheckpoint(st, hash);
  if (after.action === 'discard') await supersede(r.dir, st, after.reason, m.log);
  st.verifiedConfigHash = hash;
  await m.save();
}

/** Asks the server the lossless prompts and keeps its answers in the config's directory. */
export async function collectAnswers(r: ConfigRun): Promise<void> {
  const checkpoint = need(r.checkpoint, 'a passed checkpoint');
  const line = await collectConfigAnswers({
    plan: r.config.plan,
    url: r.config.url,
    verifiedTarget: need(checkpoint.verifiedTarget, 'a verified target'),
    configDir: r.dir,
    signal: r.m.signal,
  });
  r.m.log(`  ${line}`);
}

export const wantsAnswers = (r: ConfigRun): boolean => losslessEnabled(r.config.plan);

/** The answers of an earlier run of this config (same launch spec and configuration) are still readable. */
export async function answersKept(r: ConfigRun): Promise<boolean> {
  return (await readLosslessAnswers(r.dir)) !== null;
}
