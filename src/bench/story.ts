// `npm run bench:story`: sweeps the story's three configurations on the simulator (story-sweep.ts) and
// prints, per config and level, the measured output-throughput ratio to the baseline with its interval
// beside the performance model's ratio (story-model.ts), and whether the verdict points the model's way.
// A measurement of this host, quoted with its load average; the suite tests only the machinery.
// Flags: --rounds N (default 1) sweeps the story N times.

import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORY_LEVELS } from '../matrix/demo-plan.js';
import { storyModelRatio } from '../matrix/story-model.js';
import { sweepStory } from '../matrix/story-sweep.js';
import { givenRunNoise } from '../report/run-noise.js';

const SPECULATIVE = ['eagle3-topk4-v1', 'eagle3-topk1-v2'];
const pct = (r: number) => `${r >= 1 ? '+' : ''}${((r - 1) * 100).toFixed(1)}%`;

async function main(): Promise<void> {
  const at = process.argv.indexOf('--rounds');
  const rounds = at > 0 ? Math.max(1, Number(process.argv[at + 1]) || 1) : 1;
  let agree = 0;
  let total = 0;
  for (let round = 1; round <= rounds; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'bg-bench-story-'));
    try {
      const load = loadavg()[0].toFixed(1);
      // one trial per config: the noise estimate is the one the suite uses (3%), stated here
      const cmp = await sweepStory(dir, { runNoise: givenRunNoise(0.03, 'bench:story, 3% assumed') });
      console.log(`round ${round} (load average ${load})`);
      for (const name of SPECULATIVE)
        for (const row of cmp.levels) {
          const cell = row.cells.output_throughput.find((c) => c.run === name);
          const model = storyModelRatio(name, row.level.value);
          const measured = cell?.ratio ?? Number.NaN;
          const same = measured > 1 === model > 1 && cell?.significant === true;
          total++;
          if (same) agree++;
          const ci = cell?.ci ? ` [${pct(cell.ci.low)}, ${pct(cell.ci.high)}]` : '';
          console.log(
            `  ${name.padEnd(16)} ${row.label.padEnd(6)} measured ${pct(measured)}${ci}  model ${pct(model)}  ${same ? 'agrees' : 'DISAGREES or not significant'}`,
          );
        }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log(
    `${agree} of ${total} (config, level) verdicts point the model's way, significant (levels ${STORY_LEVELS.join(', ')})`,
  );
}

await main();
