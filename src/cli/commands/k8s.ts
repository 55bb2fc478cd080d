// `benchgate k8s PLAN`: flag parsing and wiring only; the objects are rendered in src/k8s/render.ts.
// stdout: the YAML to apply; stderr: the commands to apply it, wait, collect the shards and merge them.

import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { parseDurationS } from '../../core/clock.js';
import { BenchgateError } from '../../core/errors.js';
import { k8sCommands, type ResultsTo, renderK8sYaml, unreachableFromPods } from '../../k8s/render.js';
import { loadPlanFile } from '../../plan/load.js';
import { action, parsePositive } from '../action.js';

interface K8sFlags {
  shards: string;
  image: string;
  name?: string;
  namespace?: string;
  startIn: string;
  results: string;
  clockRef?: string;
  cpu: string;
  memory: string;
}

function parseResults(v: string): ResultsTo {
  if (v === 'stdout') return { kind: 'stdout' };
  const m = /^pvc:([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(v);
  if (m) return { kind: 'pvc', claim: m[1]! };
  throw new BenchgateError('BG_E_USAGE', `--results expects "stdout" or "pvc:<claim name>"; found "${v}".`);
}

/** target.api_key_env's value here, for the Secret the pods read it from; refused when it is not set. */
function apiKeyForPods(envName: string | undefined): { env: string; value: string } | null {
  if (!envName) return null;
  const value = process.env[envName];
  if (!value)
    throw new BenchgateError(
      'BG_E_USAGE',
      `target.api_key_env names ${envName}, which is not set here; set it so k8s can put the key in the pods' Secret.`,
    );
  return { env: envName, value };
}

export function registerK8s(program: Command): void {
  program
    .command('k8s')
    .description(
      'Render a Kubernetes Indexed Job that runs PLAN as N load shards (one pod each), and the commands to apply, collect and merge it.',
    )
    .argument('<plan>', 'plan file (YAML or JSON)')
    .requiredOption('--shards <n>', 'number of shards (pods)')
    .requiredOption('--image <image>', 'container image with benchgate on PATH')
    .option('--name <name>', 'Job name (default: from the plan name)')
    .option('--namespace <ns>', 'namespace of the Job and ConfigMap')
    .option('--start-in <d>', 'common start this long after rendering, e.g. 2m (apply before then)', '2m')
    .option(
      '--results <to>',
      'stdout (base64 tar in the pod log) or pvc:<claim> (a ReadWriteMany volume)',
      'stdout',
    )
    .option('--clock-ref <url>', 'server whose Date header is the common clock (default: the target)')
    .option('--cpu <cpu>', 'CPU request per pod', '2')
    .option('--memory <mem>', 'memory request and limit per pod', '2Gi')
    .action(
      action(async (planPath: string, flags: K8sFlags) => {
        const shards = parsePositive('--shards', flags.shards, { integer: true });
        const startInS = parseDurationS(flags.startIn);
        if (startInS === null)
          throw new BenchgateError(
            'BG_E_USAGE',
            `--start-in expects a duration such as 90s or 2m; found "${flags.startIn}".`,
          );
        const plan = await loadPlanFile(planPath); // validated completely before anything is rendered
        const planText = await readFile(planPath, 'utf8');
        const name =
          flags.name ??
          `bench-${
            (plan.name ?? 'run')
              .toLowerCase()
              .replace(/[^a-z0-9-]+/g, '-')
              .replace(/^-+|-+$/g, '')
              .slice(0, 40) || 'run'
          }`;
        const apiKey = apiKeyForPods(plan.target.api_key_env);
        const opts = {
          apiKey,
          planText,
          planFileName: basename(planPath).replace(/[^\w.-]/g, '_') || 'plan.yaml',
          name,
          namespace: flags.namespace ?? null,
          shards,
          image: flags.image,
          startAtEpochMs: Date.now() + startInS * 1000,
          results: parseResults(flags.results),
          clockRef: flags.clockRef ?? null,
          resources: { cpu: flags.cpu, memory: flags.memory },
        };
        const yaml = renderK8sYaml(opts);
        for (const w of unreachableFromPods(plan.target.url, opts.clockRef))
          process.stderr.write(`benchgate: warning: ${w}\n`);
        process.stdout.write(yaml);
        process.stderr.write(k8sCommands(opts, `${name}.yaml`));
      }),
    );
}
