// Loads and validates a plan before anything runs: from a YAML file (JSON is YAML) with every error
// located as file:line:col and key, all at once; or from an object built from command-line flags, with
// errors naming the flag. Schema shapes come from schema.ts; cross-key rules from semantic-checks.ts;
// text no file name, manifest or strict JSON parser can carry (not UTF-8, NUL, lone surrogates) from
// text-safety.ts.

import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, resolve as resolvePath } from 'node:path';
import { type Document, LineCounter, parseDocument } from 'yaml';
import { BenchgateError } from '../core/errors.js';
import { formatPlanPath, type PlanProblem } from './problem.js';
import { limitProblems, MAX_PLAN_BYTES } from './process-limits.js';
import { withFreshSalt } from './salt.js';
import { type Plan, type PlanInput, planSchema } from './schema.js';
import { schemaProblems } from './schema-problems.js';
import { semanticProblems } from './semantic-checks.js';
import { problemOffset } from './source-positions.js';
import { encodingProblem, textProblems } from './text-safety.js';
import { duplicateKeyAt, tagProblems } from './yaml-safety.js';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Schema and cross-key problems of a raw plan object, schema ones first. */
export function planProblems(raw: unknown): PlanProblem[] {
  return [...schemaProblems(raw), ...semanticProblems(raw), ...limitProblems(raw), ...textProblems(raw)];
}

/** At most this many problems are listed; a generated plan can have millions. */
const MAX_DETAILS = 100;

function capped(lines: string[]): string[] {
  if (lines.length <= MAX_DETAILS) return lines;
  return [...lines.slice(0, MAX_DETAILS), `(${lines.length - MAX_DETAILS} more errors not shown)`];
}

function tooLarge(file: string, bytes: number): BenchgateError {
  const why = `a plan may be at most ${MAX_PLAN_BYTES / 1024 / 1024} MiB (put prompts in a dataset file)`;
  return new BenchgateError(
    'BG_E_PLAN_INVALID',
    `plan ${file} is ${(bytes / 1024 / 1024).toFixed(1)} MiB; ${why}`,
    { details: [`${file}:1:1 (top level): the file is ${(bytes / 1024 / 1024).toFixed(1)} MiB; ${why}`] },
  );
}

async function readPlanText(file: string): Promise<string> {
  try {
    const size = (await stat(file)).size;
    if (size > MAX_PLAN_BYTES) throw tooLarge(file, size);
    const bytes = await readFile(file);
    const badByte = encodingProblem(bytes, file);
    if (badByte)
      throw new BenchgateError('BG_E_PLAN_INVALID', `plan ${file} is not UTF-8 text`, { details: [badByte] });
    return bytes.toString('utf8');
  } catch (e) {
    if (e instanceof BenchgateError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const found =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'a directory'
          : code === 'EACCES' || code === 'EPERM'
            ? 'a file it may not read (permission denied)'
            : `a file that could not be read (${code ?? String(e)})`;
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `expected a readable plan file at ${file}, found ${found}`,
      { cause: e },
    );
  }
}

/** Each problem as `file:line:col key: message`, in the order they appear in the file. */
function locateProblems(
  doc: Document,
  lineCounter: LineCounter,
  file: string,
  problems: PlanProblem[],
): string[] {
  return problems
    .map((p, order) => ({ p, order, offset: problemOffset(doc, p) }))
    .sort((a, b) => a.offset - b.offset || a.order - b.order)
    .map(({ p, offset }) => {
      const { line, col } = lineCounter.linePos(offset);
      return `${file}:${line}:${col} ${formatPlanPath(p.path)}: ${p.message}`;
    });
}

function locatedError(file: string, details: string[]): BenchgateError {
  return new BenchgateError(
    'BG_E_PLAN_INVALID',
    `plan ${file} is invalid: ${plural(details.length, 'error')}`,
    {
      details: capped(details),
    },
  );
}

/**
 * Problems found after a plan file loaded (in the files it names), located in that file as its schema
 * problems are; `fromFlags` problems concern a key a command-line flag set, named by the flag instead.
 */
export async function planFileProblemsError(
  file: string | null,
  problems: PlanProblem[],
  flagOf: (p: PlanProblem) => string | null,
): Promise<BenchgateError> {
  const inFile = problems.filter((p) => file !== null && flagOf(p) === null);
  const byFlag = problems.filter((p) => !inFile.includes(p));
  const details: string[] = [];
  if (file !== null && inFile.length > 0) {
    const lineCounter = new LineCounter();
    const doc = parseDocument((await readPlanText(file)).replace(/^\uFEFF/, ''), { lineCounter });
    details.push(...locateProblems(doc, lineCounter, file, inFile));
  }
  const source = file ? `${file} + flags` : 'flags';
  for (const p of byFlag) {
    const flag = flagOf(p);
    const key = formatPlanPath(p.path);
    details.push(`${source} ${flag ? `${flag} (${key})` : key}: ${p.message}`);
  }
  return locatedError(file ?? 'from flags', details);
}

/** Parses and validates plan text; `file` names the source in every message. */
export function parsePlanText(text: string, file: string): Plan {
  if (text.length > MAX_PLAN_BYTES) throw tooLarge(file, Buffer.byteLength(text));
  const lineCounter = new LineCounter();
  const source = text.replace(/^\uFEFF/, '');
  const doc = parseDocument(source, {
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
  });
  const located = (offset: number, message: string) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, col, text: `${file}:${line}:${col} ${message}` };
  };
  const syntax = doc.errors.map((err) => {
    const key = err.code === 'DUPLICATE_KEY' ? duplicateKeyAt(doc, err.pos[0]) : null;
    const message = key
      ? `key "${key}" is given twice; each key may appear once (the second would silently win)`
      : err.message.split('\n')[0]!;
    return located(err.pos[0], message);
  });
  syntax.push(...tagProblems(doc, source).map((p) => located(p.offset, p.message)));
  syntax.sort((a, b) => a.line - b.line || a.col - b.col);
  let raw: unknown;
  if (syntax.length === 0) {
    try {
      raw = doc.toJS({ maxAliasCount: 100 });
    } catch (e) {
      syntax.push({ line: 1, col: 1, text: `${file}:1:1 ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  if (syntax.length > 0) {
    const first = syntax[0]!;
    const more = syntax.length > 1 ? ` (and ${plural(syntax.length - 1, 'more error')})` : '';
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `plan ${file} is not valid YAML at line ${first.line}, column ${first.col}${more}`,
      { details: syntax.map((s) => s.text) },
    );
  }
  if (raw === null || raw === undefined) {
    const why = 'the plan is empty; expected a mapping of options such as target, workload and load';
    throw new BenchgateError('BG_E_PLAN_INVALID', `plan ${file} is empty`, {
      details: [`${file}:1:1 (top level): ${why}`],
    });
  }
  const problems = planProblems(raw);
  if (problems.length > 0) throw locatedError(file, locateProblems(doc, lineCounter, file, problems));
  const plan = withFreshSalt(planSchema.parse(raw));
  if (plan.name === undefined) plan.name = basename(file, extname(file)) || 'bench';
  return plan;
}

/**
 * Reads a plan file (YAML or JSON), validates it completely and applies defaults. Files the plan names
 * (workload.dataset, workload.tokenizer) are resolved against the plan file's folder, so a plan and its
 * data can move together.
 */
export async function loadPlanFile(path: string): Promise<Plan> {
  const plan = parsePlanText(await readPlanText(path), path);
  const near = (p: string): string => (isAbsolute(p) ? p : resolvePath(dirname(path), p));
  const w = plan.workload;
  return {
    ...plan,
    workload: {
      ...w,
      dataset: w.dataset === 'random' ? w.dataset : near(w.dataset),
      ...(w.tokenizer !== undefined ? { tokenizer: near(w.tokenizer) } : {}),
      ...(w.trace !== undefined ? { trace: { ...w.trace, path: near(w.trace.path) } } : {}),
    },
  };
}

export interface ResolvePlanOptions {
  /** Which command-line flag set a plan key, e.g. { 'load.levels': '--concurrency' }; errors then name the flag. */
  flags?: Record<string, string>;
}

function flagFor(problem: PlanProblem, flags: Record<string, string>): string | null {
  const keys = problem.path.filter((s): s is string => typeof s === 'string');
  for (let n = keys.length; n > 0; n--) {
    const flag = flags[keys.slice(0, n).join('.')];
    if (flag) return flag;
  }
  return null;
}

/** Validates a plan built in code (e.g. from flags) and applies defaults; `source` names it in messages. */
export function resolvePlan(input: PlanInput, source: string, opts: ResolvePlanOptions = {}): Plan {
  const problems = planProblems(input);
  if (problems.length > 0) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `plan from ${source} is invalid: ${plural(problems.length, 'error')}`,
      {
        details: capped(
          problems.map((p) => {
            const key = formatPlanPath(p.path);
            const flag = opts.flags ? flagFor(p, opts.flags) : null;
            return `${source} ${flag ? `${flag} (${key})` : key}: ${p.message}`;
          }),
        ),
      },
    );
  }
  const plan = withFreshSalt(planSchema.parse(input));
  if (plan.name === undefined) plan.name = 'bench';
  return plan;
}
