// Plan-time validation of every file a plan names: it exists, is a regular file within the size bound
// (plan/plan-files.ts) and parses with the reader that will use it (dataset, trace, tokenizer.json,
// lossless reference). Run before the checkpoint, the smoke request or a run directory, so a bad file
// is a plan error (exit 2) located at its key, not a failure after the server was already asked.

import { readReference } from '../checkpoint/lossless-reference.js';
import { BenchgateError } from '../core/errors.js';
import { readPromptFile } from '../load/prompts.js';
import { localTokenizer } from '../load/tokenizer.js';
import { readTrace } from '../load/trace.js';
import { planFileProblemsError } from '../plan/load.js';
import { flagThatSet } from '../plan/merge-flags.js';
import { fileShapeProblem, type NamedFile, namedFiles } from '../plan/plan-files.js';
import { formatPlanPath, type PlanProblem } from '../plan/problem.js';
import type { Plan, PlanInput } from '../plan/schema.js';

/** Reads and parses one named file as its user will; throws the reader's error when it cannot. */
async function parseNamed(plan: Plan, f: NamedFile): Promise<void> {
  if (f.kind === 'dataset') await readPromptFile(f.file);
  else if (f.kind === 'trace') await readTrace(f.file, plan.workload.trace?.format);
  else if (f.kind === 'tokenizer') await localTokenizer(f.file);
  else await readReference(f.file);
}

/** A reader's message without the key it starts with (the located line names the key already). */
function readerMessage(f: NamedFile, e: unknown): string {
  const text = e instanceof BenchgateError ? e.message : `could not be read (${String(e)})`;
  const key = `${formatPlanPath(f.path.slice(0, 2))}: `;
  return text.startsWith(key) ? text.slice(key.length) : text;
}

async function fileProblem(plan: Plan, f: NamedFile): Promise<PlanProblem | null> {
  const shape = await fileShapeProblem(f.file);
  if (shape !== null) return { path: f.path, message: shape, anchor: 'value' };
  try {
    await parseNamed(plan, f);
    return null;
  } catch (e) {
    return { path: f.path, message: readerMessage(f, e), anchor: 'value' };
  }
}

/**
 * Every file `plan` names checked and parsed; a BG_E_PLAN_INVALID error listing each bad one at its key
 * (file:line:col of `planPath`, or the flag that set it) when any is.
 */
export async function checkPlanFiles(
  plan: Plan,
  source: { planPath: string | null; flags?: PlanInput },
): Promise<void> {
  const problems: PlanProblem[] = [];
  for (const f of namedFiles(plan)) {
    const p = await fileProblem(plan, f);
    if (p) problems.push(p);
  }
  if (problems.length === 0) return;
  const flags = source.flags ?? {};
  throw await planFileProblemsError(source.planPath, problems, (p) => flagThatSet(flags, p.path));
}
