// Builders for matrix tests: plans whose configs launch the embedded simulator as a real child process
// (this checkout's CLI, built for the run, so tests never depend on a stale dist), unique command-line
// markers, and /proc scans.

import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliNodeArgs } from '../../cli/test-support/cli-argv.js';
import { type Plan, type PlanInput, planSchema } from '../../plan/schema.js';
import { storyServerSimArgs } from '../demo-plan.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** argv that runs this checkout's benchgate CLI (cli-argv.ts), from any working directory. */
export function benchgateArgv(): string[] {
  return [process.execPath, ...cliNodeArgs()];
}

export function uniqueMarker(): string {
  return `bgtest-${randomBytes(4).toString('hex')}`;
}

/** `benchgate sim` arguments for a fast SGLang-flavoured server; `marker` tags its command line. */
export function simArgs(port: number, marker: string, extra: string[] = [], timeScale = 200): string[] {
  const sim = storyServerSimArgs({
    port,
    timeScale,
    loadTimeS: 0.3,
    modelPath: `${marker}/model`,
    engineArgs: extra,
  });
  return [...cliNodeArgs(), 'sim', ...sim];
}

export interface SimConfigInput {
  name: string;
  port: number;
  marker: string;
  extra?: string[];
  env?: Record<string, string>;
  readyTimeout?: string;
  timeScale?: number;
}

export function simConfig(c: SimConfigInput): NonNullable<PlanInput['configs']>[number] {
  return {
    name: c.name,
    url: `http://127.0.0.1:${c.port}`,
    launch: {
      command: [process.execPath],
      args: simArgs(c.port, c.marker, c.extra, c.timeScale),
      env: c.env ?? {},
    },
    ready_timeout: c.readyTimeout ?? '30s',
    stop: { signal: 'SIGTERM', grace: '3s' },
  };
}

export function testPlan(
  output: string,
  configs: NonNullable<PlanInput['configs']>,
  over: Partial<PlanInput> = {},
): Plan {
  return planSchema.parse({
    name: 'matrix-test',
    target: { engine: 'sglang', api: 'native' },
    workload: { input_tokens: { fixed: 16 }, output_tokens: { fixed: 8 }, ignore_eos: true },
    load: { kind: 'concurrency', levels: [1, 3], requests: 4 },
    output,
    expect: { config: { tp_size: 8 }, smoke: true },
    configs,
    ...over,
  } satisfies PlanInput);
}

/** PIDs of live processes whose command line contains `marker` (zombies excluded). */
export async function pidsWithMarker(marker: string): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = await readFile(`/proc/${name}/cmdline`, 'utf8');
      if (!cmd.includes(marker)) continue;
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z') out.push(Number(name));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** True while a process with this PID exists (signal 0 probes without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Measured (non-warmup) requests per level index in a run directory's requests.jsonl. */
export async function requestsPerLevel(dir: string): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const line of (await readFile(join(dir, 'requests.jsonl'), 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as { levelIndex: number; warmup: boolean };
    if (!r.warmup) counts[r.levelIndex] = (counts[r.levelIndex] ?? 0) + 1;
  }
  return counts;
}
