// "What is that server running?": the few facts a performance engineer reads first (engine and build,
// model, parallelism, weights, scheduler, speculative decoding and where its acceptance was read), as a
// short block under the checklist. Read from the verified target only; a fact not read says unknown.

import type { ConfigFact, VerifiedTarget } from '../engines/types.js';

type Item = [label: string, key: string, show?: (v: ConfigFact['value']) => string];

const onOff = (v: ConfigFact['value']) => (v === true ? 'on' : v === false ? 'off' : String(v));

const LINES: [title: string, items: Item[]][] = [
  [
    'parallelism',
    [
      ['TP', 'tp_size'],
      ['DP', 'dp_size'],
      ['PP', 'pp_size'],
    ],
  ],
  [
    'weights',
    [
      ['quantization', 'quantization', (v) => (v === null ? 'none' : String(v))],
      ['dtype', 'dtype'],
      ['context', 'context_length', (v) => `${v} tokens`],
    ],
  ],
  [
    'scheduler',
    [
      ['max running requests', 'max_running_requests'],
      ['overlap schedule', 'overlap_schedule', onOff],
    ],
  ],
];

const SPECULATIVE: Item[] = [
  ['steps', 'speculative.num_steps'],
  ['top-k', 'speculative.topk'],
  ['draft tokens', 'speculative.num_draft_tokens'],
  ['spec v2', 'speculative.spec_v2', onOff],
  ['draft', 'speculative.draft_model', (v) => (v === null ? 'none given' : String(v))],
];

function item(config: VerifiedTarget['config'], [label, key, show]: Item): string | null {
  const f = config[key];
  if (f === undefined) return null;
  const value = show ? show(f.value) : String(f.value);
  return `${label} ${value}${f.inferred ? ' (inferred)' : ''}`;
}

/** A line of the items read; the ones the server did not expose are named as unknown at its end. */
function line(config: VerifiedTarget['config'], items: Item[]): string {
  const known = items.map((i) => item(config, i)).filter((s): s is string => s !== null);
  const unknown = items.filter((i) => config[i[1]] === undefined).map((i) => i[0]);
  return [...known, ...(unknown.length ? [`unknown: ${unknown.join(', ')}`] : [])].join(' · ');
}

function speculativeLine(config: VerifiedTarget['config']): string {
  const algorithm = config['speculative.algorithm'];
  const active = config['speculative.active'];
  if (algorithm === undefined && active === undefined) return 'unknown (not exposed by this server)';
  if (algorithm?.value === null && active?.value !== true) return 'none';
  const head = algorithm ? String(algorithm.value ?? 'unknown algorithm') : 'unknown algorithm';
  const parts = [head, ...SPECULATIVE.map((i) => item(config, i)).filter((s): s is string => s !== null)];
  if (active) parts.push(`${active.value === true ? 'speculating' : 'not speculating'} (${active.source})`);
  return parts.join(' · ');
}

/** The "running:" block for the terminal, or nothing when the checkpoint verified no target. */
export function runningBlock(target: VerifiedTarget | null | undefined): string[] {
  if (!target) return [];
  const c = target.config;
  const build = target.engineVersion ?? 'version unknown';
  const out = [`running: ${target.engine} ${build} · ${target.model ?? 'model unknown'}`];
  for (const [title, items] of LINES) out.push(`  ${title.padEnd(13)}${line(c, items)}`);
  out.push(`  ${'speculative'.padEnd(13)}${speculativeLine(c)}`);
  return out;
}
