// Wires the matrix's stages to the real modules: checkpoint (src/checkpoint), one sweep level
// (src/load runBench), drift check, comparison + HTML report (src/report), checklist rendering.

import { checkDrift } from '../checkpoint/gate.js';
import { renderChecklist } from '../checkpoint/render-text.js';
import { runCheckpoint } from '../checkpoint/run.js';
import { wantsColor } from '../core/color.js';
import { BenchgateError } from '../core/errors.js';
import { benchgateVersion } from '../core/version.js';
import { silentProgress } from '../load/progress.js';
import { runBench } from '../load/run-bench.js';
import { renderFormat, reportArtifacts } from '../report/artifacts.js';
import { compareRuns } from '../report/compare.js';
import { readRuns } from '../results/read-run.js';
import { writeArtifacts } from '../results/write-artifacts.js';
import type { MatrixStages } from './stages.js';

export function defaultStages(): MatrixStages {
  return {
    checkpoint: (a) =>
      runCheckpoint({ plan: a.plan, host: a.host, signal: a.signal, onProgress: a.onProgress }),
    sweepLevel: async (a) => {
      const r = await runBench({
        plan: a.plan,
        runDir: a.runDir,
        levelIndexBase: a.levelIndex,
        signal: a.signal,
        progress: { ...silentProgress, note: (l) => a.onProgress(l) },
        beforeLoad: async () => a.checkpoint,
        afterLevel: () => a.afterLevel(),
      });
      const level = r.summary.levels[0];
      if (r.interrupted || !level) {
        throw new BenchgateError(
          'BG_E_ABORTED',
          r.summary.incomplete?.reason ?? 'the level was interrupted before it finished.',
        );
      }
      return level;
    },
    driftCheck: checkDrift,
    compare: async ({ runs, outDir }) => {
      const loaded = await readRuns(runs.map((r) => r.dir));
      const cmp = compareRuns(loaded, { baseline: loaded[0]?.name });
      const html = { version: benchgateVersion(), generatedAt: new Date().toISOString() };
      const written = await writeArtifacts(outDir, reportArtifacts(cmp, 'text', { html }));
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
