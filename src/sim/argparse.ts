// Engine flags parsed the way the engines' Python argparse does: `--flag value`, `--flag=value`,
// store_true flags, choices, and argparse's own error wording for unknown flags and bad values.

import { BenchgateError } from '../core/errors.js';

type ArgType = 'int' | 'float' | 'str' | 'bool' | 'json';

export interface FlagSpec {
  flags: string[];
  dest: string;
  type: ArgType;
  choices?: string[];
  /** A bool flag with argparse.BooleanOptionalAction: `--no-<flag>` sets it false. */
  negatable?: boolean;
}

function argparseError(prog: string, message: string): BenchgateError {
  return new BenchgateError('BG_E_USAGE', `${prog}: error: ${message}`);
}

function convert(prog: string, spec: FlagSpec, raw: string): unknown {
  const name = spec.flags.join('/');
  if (spec.type === 'int') {
    if (!/^[-+]?\d+$/.test(raw)) throw argparseError(prog, `argument ${name}: invalid int value: '${raw}'`);
    return Number(raw);
  }
  if (spec.type === 'float') {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n))
      throw argparseError(prog, `argument ${name}: invalid float value: '${raw}'`);
    return n;
  }
  if (spec.type === 'json') {
    try {
      return JSON.parse(raw);
    } catch {
      throw argparseError(prog, `argument ${name}: invalid loads value: '${raw}'`);
    }
  }
  if (spec.choices && !spec.choices.includes(raw)) {
    throw argparseError(
      prog,
      `argument ${name}: invalid choice: '${raw}' (choose from ${spec.choices.map((c) => `'${c}'`).join(', ')})`,
    );
  }
  return raw;
}

/** Parses argv like argparse: `--flag value`, `--flag=value`, store_true flags; collects unknowns. */
export function parseEngineArgv(
  prog: string,
  specs: FlagSpec[],
  argv: string[],
  allowPositionalModel: string | null,
): { values: Record<string, unknown>; given: string[] } {
  const byFlag = new Map<string, FlagSpec>();
  const negated = new Map<string, FlagSpec>();
  for (const s of specs) {
    for (const f of s.flags) byFlag.set(f, s);
    if (s.negatable) negated.set(`--no-${s.flags[0].slice(2)}`, s);
  }
  const values: Record<string, unknown> = {};
  const given: string[] = [];
  const unknown: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('-')) {
      if (allowPositionalModel && values[allowPositionalModel] === undefined && i === 0) {
        values[allowPositionalModel] = a;
        given.push(allowPositionalModel);
      } else unknown.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const off = negated.get(a);
    if (off) {
      values[off.dest] = false;
      given.push(off.dest);
      continue;
    }
    const spec = byFlag.get(flag);
    if (!spec) {
      unknown.push(a);
      if (eq < 0 && i + 1 < argv.length && !argv[i + 1].startsWith('-')) unknown.push(argv[++i]);
      continue;
    }
    if (spec.type === 'bool') {
      if (eq > 0)
        throw argparseError(
          prog,
          `argument ${spec.flags.join('/')}: ignored explicit argument '${a.slice(eq + 1)}'`,
        );
      values[spec.dest] = true;
    } else {
      let raw: string | undefined;
      if (eq > 0) raw = a.slice(eq + 1);
      else if (i + 1 < argv.length && !(argv[i + 1].startsWith('--') && argv[i + 1].length > 2))
        raw = argv[++i];
      if (raw === undefined)
        throw argparseError(prog, `argument ${spec.flags.join('/')}: expected one argument`);
      values[spec.dest] = convert(prog, spec, raw);
    }
    given.push(spec.dest);
  }
  if (unknown.length > 0) throw argparseError(prog, `unrecognized arguments: ${unknown.join(' ')}`);
  return { values, given };
}
