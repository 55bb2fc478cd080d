// Test helpers for checkpoint tests: start the embedded simulator with a log file in a temp dir and
// run the checkpoint against it with a plan built in code.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTargetHttp } from '../client/target-http.js';
import type { EngineName, VerifiedTarget } from '../engines/types.js';
import type { ProcessHost } from '../hosts/host.js';
import { LocalHost } from '../hosts/local-host.js';
import { resolvePlan } from '../plan/load.js';
import type { PlanInput } from '../plan/schema.js';
import type { SimulatorHandle, SimulatorOptions } from '../sim/api.js';
import { startSimulator } from '../sim/index.js';
import { type CheckContext, newCheckContext } from './context.js';
import type { CheckpointReport, Finding } from './finding.js';
import { runCheckpoint } from './run.js';

export interface SimCheck {
  report: CheckpointReport;
  verifiedTarget: VerifiedTarget | null;
  progress: string[];
  sim: SimulatorHandle;
  logFile: string;
  dir: string;
  byId(id: string): Finding;
}

/** Fast simulator defaults: fixed timing, tiny load time. */
export const FAST_SIM: SimulatorOptions = {
  timeScale: 50,
  profile: 'fixed',
  ttftMs: 5,
  itlMs: 1,
  loadTimeS: 0.2,
};

export async function checkSim(
  sim: SimulatorOptions,
  plan: (ctx: { url: string; logFile: string; dir: string }) => PlanInput,
  opts: { host?: ProcessHost; keepOpen?: boolean } = {},
): Promise<SimCheck> {
  const dir = mkdtempSync(join(tmpdir(), 'bg-check-'));
  const logFile = join(dir, 'server.log');
  const handle = await startSimulator({ ...FAST_SIM, ...sim, logFile });
  const progress: string[] = [];
  try {
    const p = resolvePlan(
      { output: join(dir, 'results'), ...plan({ url: handle.url, logFile, dir }) },
      'test plan',
    );
    const { report, verifiedTarget } = await runCheckpoint({
      plan: p,
      host: opts.host,
      onProgress: (l) => progress.push(l),
    });
    const byId = (id: string) => {
      const f = report.findings.find((x) => x.id === id);
      if (!f) throw new Error(`no finding ${id}; have ${report.findings.map((x) => x.id).join(', ')}`);
      return f;
    };
    return { report, verifiedTarget, progress, sim: handle, logFile, dir, byId };
  } finally {
    if (!opts.keepOpen) await handle.close();
  }
}

export const failedIds = (r: CheckpointReport): string[] =>
  r.findings.filter((f) => f.required && f.status === 'fail').map((f) => f.id);

export type { EngineName };

/** A check context for checks that need no server (tools, GPUs), on the local host by default. */
export function ctxFor(input: PlanInput, host: ProcessHost = new LocalHost()): CheckContext {
  const plan = resolvePlan(input, 'test plan');
  const url = plan.target.url ?? 'http://127.0.0.1:9';
  return newCheckContext({ plan, host, http: createTargetHttp(url), url, headers: {} });
}
