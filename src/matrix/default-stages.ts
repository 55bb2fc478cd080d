// Wires the matrix's stages to the real modules: checkpoint (src/checkpoint), a session of the server
// (src/session openSession), drift check, comparison + HTML report (src/report), checklist rendering.

import { checkDrift } from '../checkpoint/gate.js';
import { renderChecklist } from '../checkpoint/render-text.js';
import { runCheckpoint } from '../checkpoint/run.js';
import { wantsColor } from '../core/color.js';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import { silentProgress } from '../load/progress.js';
import { renderFormat, reportArtifacts } from '../report/artifacts.js';
import { compareRuns } from '../report/compare.js';
import { readRuns } from '../results/read-run.js';
import { chartFontDirs, writeArtifacts } from '../results/write-artifacts.js';
import { authHeaders, openSession } from '../session/session.js';
import type { MatrixStages } from './stages.js';

export function defaultStages(): MatrixStages {
  return {
    checkpoint: (a) =>
      runCheckpoint({ plan: a.plan, host: a.host, signal: a.signal, onProgress: a.onProgress }),
    openSession: (a) => {
      const url = a.plan.target.url;
      if (!url) throw new BenchgateError('BG_E_INTERNAL', 'a matrix config reached the sweep without a URL.');
      const { headers, secrets } = authHeaders(a.plan, process.env);
      return openSession({
        plan: a.plan,
        url,
        headers,
        secrets,
        planPath: a.planPath,
        progress: { ...silentProgress, note: (l: string) => a.onProgress(l) },
        beforeLoad: async () => a.checkpoint,
        signal: a.signal,
      });
    },
    driftCheck: checkDrift,
    compare: async ({ runs, skipped, outDir }) => {
      const loaded = await readRuns(runs.map((r) => r.dir));
      const cmp = compareRuns(loaded, { baseline: loaded[0]?.name, skipped });
      const html = { version: benchgateVersion(), generatedAt: new Date().toISOString() };
      const written = await writeArtifacts(
        outDir,
        reportArtifacts(cmp, 'text', { html, fontDirs: chartFontDirs() }),
      );
      const text = renderFormat(cmp, 'text', { color: wantsColor(process.stdout, process.env) });
      return {
        text,
        htmlPath: written.find((p) => p.endsWith('report.html')) ?? null,
        json: JSON.parse(renderFormat(cmp, 'json', { color: false })),
      };
    },
    renderChecklist: (report, name) =>
      `Checkpoint: ${name}\n${renderChecklist(report, { color: wantsColor(process.stdout) })}`,
  };
}
