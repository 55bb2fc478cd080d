// `benchgate run` for a plan without configs: the server is already running, so the run is checkpoint →
// sweep (drift-checked after each level) → report, in one run directory. No process is launched or stopped.

import { join } from 'node:path';
import { type CheckpointOutcome, checkAfterLevel } from '../checkpoint/gate.js';
import type { VerifiedTarget } from '../engines/types.js';
import { openHost } from '../hosts/open-host.js';
import { type ProgressView, silentProgress } from '../load/progress.js';
import type { Plan } from '../plan/schema.js';
import { runBench } from '../session/run-bench.js';
import type { MatrixStages } from './stages.js';

export interface SingleRunResult {
  runDir: string;
  interrupted: boolean;
  comparison: { text: string; htmlPath: string | null; json: unknown } | null;
}

export async function runSingle(opts: {
  plan: Plan;
  planPath: string | null;
  stages: MatrixStages;
  signal: AbortSignal;
  progress?: ProgressView;
  print: (text: string) => void;
  onProgress?: (line: string) => void;
  json: boolean;
}): Promise<SingleRunResult> {
  const { plan, stages } = opts;
  let checked: CheckpointOutcome | null = null;
  const host = await openHost(plan.host);
  try {
    const r = await runBench({
      plan,
      planPath: opts.planPath,
      signal: opts.signal,
      progress: opts.progress ?? silentProgress,
      beforeLoad: async () => {
        checked = await stages.checkpoint({
          plan,
          host,
          signal: opts.signal,
          onProgress: opts.onProgress ?? (() => {}),
        });
        opts.print(stages.renderChecklist(checked.report, plan.target.url ?? 'target'));
        return checked;
      },
      afterLevel: async () => {
        const current = checked as CheckpointOutcome | null;
        const verifiedTarget: VerifiedTarget | null = current?.verifiedTarget ?? null;
        if (!current || !verifiedTarget) return { valid: true, reasons: [] };
        const r = await checkAfterLevel({
          current,
          drift: () => stages.driftCheck({ plan, host, verifiedTarget }),
          recheck: () =>
            stages.checkpoint({ plan, host, signal: opts.signal, onProgress: opts.onProgress ?? (() => {}) }),
        });
        checked = r.outcome;
        return r.validity;
      },
    });
    const comparison =
      r.summary.levels.length > 0
        ? await stages.compare({
            runs: [{ name: r.summary.name, dir: r.runDir }],
            skipped: [],
            outDir: join(r.runDir, 'report'),
            plan,
            json: opts.json,
          })
        : null;
    return { runDir: r.runDir, interrupted: r.interrupted, comparison };
  } finally {
    await host.close();
  }
}
