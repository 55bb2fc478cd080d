// The workload an imported file states, written into the imported run's plan: the dataset, and the
// input and output lengths from explicit keys (SGLang's random_input_len when its lengths were fixed,
// keys a user added with vLLM --metadata) or from the per-request lengths. What the file does not say is
// deleted from the plan (unknown), never left at the plan defaults (1024/256), and named in a warning.

import { extent } from '../core/extent.js';
import type { ResultFields } from './import-fields.js';
import type { ImportedRun } from './import-run.js';

type TokenLength = ImportedRun['manifest']['plan']['workload']['input_tokens'];

/** The value every result gives for the first key any gives; null when absent anywhere or disagreeing. */
function agreed<T>(
  all: readonly ResultFields[],
  keys: readonly string[],
  read: (f: ResultFields, k: string) => T | null,
): T | null {
  for (const k of keys) {
    const vals = all.map((f) => read(f, k));
    if (vals.every((v) => v !== null && v === vals[0])) return vals[0];
  }
  return null;
}

/** SGLang's random lengths are fixed only with random_range_ratio 1 (else drawn below the stated length). */
function fixedLengthKeys(f: ResultFields, keys: readonly string[]): boolean {
  const dataset = f.text('dataset_name') ?? '';
  const ratio = f.amount('random_range_ratio');
  const random = keys.filter((k) => k.startsWith('random_'));
  return random.length === 0 || (dataset.startsWith('random') && (ratio === null || ratio === 1));
}

/** A length from an explicit key, else from per-request lengths (fixed when all equal, else their range). */
function lengthFact(
  all: readonly ResultFields[],
  keys: readonly string[],
  lensKey: string,
): TokenLength | null {
  const usable = keys.filter((k) => !k.startsWith('random_') || all.every((f) => fixedLengthKeys(f, [k])));
  const fixed = agreed(all, usable, (f, k) => f.count(k));
  if (fixed !== null && fixed > 0) return { fixed };
  const lists = all.map((f) => f.counts(lensKey));
  if (lists.some((l) => l === null)) return null;
  const lens = lists.flatMap((l) => l ?? []).filter((n) => n > 0);
  if (lens.length === 0) return null;
  const { min: lo, max: hi } = extent(lens);
  return lo === hi ? { fixed: lo } : { uniform: [lo, hi] };
}

/** Mean input/output tokens per request from the first result's totals, for the warning. */
function totalsHint(all: readonly ResultFields[]): string | null {
  for (const f of all) {
    const n = f.count('completed');
    if (!n) continue;
    const i = f.count('total_input_tokens');
    const o = f.count('total_output_tokens');
    return `mean ${i !== null ? Math.round(i / n) : '?'} in / ${o !== null ? Math.round(o / n) : '?'} out tokens per request`;
  }
  return null;
}

export function applyWorkloadFacts(run: ImportedRun, all: readonly ResultFields[]): void {
  const w = run.manifest.plan.workload as Partial<typeof run.manifest.plan.workload>;
  const dataset = agreed(all, ['dataset_name', 'dataset'], (f, k) => {
    const v = f.value(k);
    return typeof v === 'string' && v ? v : null;
  });
  const input = lengthFact(all, ['random_input_len', 'input_len'], 'input_lens');
  const output = lengthFact(all, ['random_output_len', 'output_len'], 'output_lens');
  const unknown: string[] = [];
  if (dataset) w.dataset = dataset;
  else {
    delete w.dataset;
    unknown.push('dataset');
  }
  for (const [key, fact] of [
    ['input_tokens', input],
    ['output_tokens', output],
  ] as const) {
    if (fact) w[key] = fact;
    else {
      delete w[key];
      unknown.push(key);
    }
  }
  if (unknown.length > 0) {
    const hint = totalsHint(all);
    run.warnings.push(
      `The file does not say the workload's ${unknown.join(', ')}: recorded as unknown${hint ? ` (its totals give ${hint})` : ''}.`,
    );
  }
}
