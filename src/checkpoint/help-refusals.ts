// The refusals a tool prints when its command line is wrong, as argparse (a subcommand's `vllm serve:`
// prefix included), click (and typer's boxes), commander, yargs, Go's flag package, cobra, clap (v2–v4),
// llama.cpp's own parser and getopts/getopt print them, each with what
// kind of refusal it is. "the following arguments are required: --base-url" is a missing required
// argument (the tool accepts the flag but needs it), never a rejection of --base-url.

import { badInput, cleanLines } from './help-text.js';

export type RefusalKind = 'unknown-flag' | 'missing-required' | 'bad-value' | 'ambiguous' | 'conflict';

/** A refusal the tool printed: its kind, the flags it names and the line that says so. */
export interface Rejection {
  kind: RefusalKind;
  flags: string[];
  line: string;
  /** A refused value as the tool quoted it (argparse's invalid choice or type). */
  value?: string;
  /** The values the tool would take (argparse's `choose from …`). */
  choices?: string[];
}

/**
 * argparse's `{prog}: error: ` where prog is whatever the tool was started as: a script
 * (`bench_serving.py`), a subcommand (`vllm bench serve`), a module (`python3 -m sglang.bench_serving`).
 */
const ARGPARSE = String.raw`^(?:\S+(?: \S+){0,5}: )?error: `;
const argparse = (rest: string) => new RegExp(ARGPARSE + rest);

const FLAG = /(?:^|[\s,[|(/])(--?[A-Za-z][\w-]*)/g;

export function flagsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FLAG)) out.push(m[1]);
  return out;
}

const dashed = (names: string[]) =>
  names
    .map((n) => n.trim().replace(/^['"]|['"]$/g, ''))
    .filter((n) => n !== '')
    .map((n) => (n.startsWith('-') ? n : n.length === 1 ? `-${n}` : `--${n}`));
const flagTokens = (s: string) =>
  s
    .split(/[\s,]+/)
    .map((t) => t.replace(/^['"`]|['"`.]+$/g, ''))
    .filter((t) => /^--?[A-Za-z]/.test(t))
    .map((t) => t.replace(/=.*$/, ''));
const firstLong = (spec: string) => {
  const fs = flagsIn(` ${spec}`);
  return fs.find((f) => f.startsWith('--')) ?? fs[0];
};
const quoted = (s: string) => firstLong(s.replace(/['"`/]/g, ' '));

type Pattern = [RefusalKind, RegExp, (m: RegExpExecArray) => string[]];

/** What each library prints when it refuses; each returns the flags it names. */
const REFUSALS: Pattern[] = [
  // argparse
  ['unknown-flag', argparse('unrecognized arguments?: (.+)$'), (m) => flagTokens(m[1])],
  ['ambiguous', argparse(String.raw`ambiguous option: (\S+) could match`), (m) => [m[1].replace(/=.*$/, '')]],
  [
    'conflict',
    argparse(String.raw`argument (\S+): not allowed with argument (\S+)`),
    (m) => [quoted(m[1]), quoted(m[2])],
  ],
  [
    'bad-value',
    argparse(String.raw`argument (\S+): (?:invalid|expected|ignored)`),
    (m) => [firstLong(m[1].replace(/\//g, ' '))],
  ],
  ['missing-required', argparse('the following arguments are required: (.+)$'), (m) => requiredNames(m[1])],
  // click (8.0–8.1 and 8.2+ spellings) and typer's boxed errors
  [
    'unknown-flag',
    /^(?:Error: )?[Nn]o such option:? (\S+)/,
    (m) => [m[1].replace(/[.'"]+$/, '').replace(/^['"]/, '')],
  ],
  ['bad-value', /^(?:Error: )?Invalid value for (.+?): /, (m) => [quoted(m[1])]],
  ['missing-required', /^(?:Error: )?Missing option (.+?)\.?$/, (m) => [quoted(m[1])]],
  ['bad-value', /^(?:Error: )?Option (\S+) requires an? argument/, (m) => [quoted(m[1])]],
  ['unknown-flag', /^(?:Error: )?Got unexpected extra arguments? \((.*)\)/, (m) => flagTokens(m[1])],
  // commander
  ['unknown-flag', /^error: unknown option '([^']+)'/, (m) => [m[1].replace(/=.*$/, '')]],
  ['bad-value', /^error: option '([^']+)' argument '[^']*' is invalid/, (m) => [firstLong(m[1])]],
  ['missing-required', /^error: required option '([^']+)' not specified/, (m) => [firstLong(m[1])]],
  // yargs
  ['unknown-flag', /^Unknown arguments?: (.+)$/, (m) => dashed(m[1].split(','))],
  ['bad-value', /^Invalid values?:/, () => []],
  ['missing-required', /^Missing required arguments?: (.+)$/, (m) => dashed(m[1].split(','))],
  // Go's flag package and cobra
  ['unknown-flag', /^flag provided but not defined: (-\S+)/, (m) => [m[1]]],
  ['bad-value', /^invalid (?:value|boolean value) "[^"]*" for flag (-\S+?):/, (m) => [m[1]]],
  ['bad-value', /^flag needs an argument: (-\S+)/, (m) => [m[1].replace(/^'|'$/g, '')]],
  [
    'unknown-flag',
    /^Error: unknown (?:shorthand )?flag: (?:'(\w)' in )?(-\S+)/,
    (m) => [m[1] ? `-${m[1]}` : m[2]],
  ],
  ['missing-required', /^Error: required flag\(s\) (.+) not set/, (m) => dashed(m[1].split(','))],
  // clap v4, then v2/v3
  ['unknown-flag', /^error: unexpected argument '([^']+)' found/, (m) => flagTokens(m[1])],
  ['unknown-flag', /^error: Found argument '([^']+)' which wasn't expected/, (m) => flagTokens(m[1])],
  ['bad-value', /^error: invalid value '[^']*' for '([^']+)'/, (m) => [firstLong(m[1])]],
  [
    'missing-required',
    /^error: [Tt]he following required arguments were not provided:?(.*)$/,
    (m) => flagTokens(m[1]),
  ],
  // llama.cpp (common/arg.cpp; `unknown argument` in builds of 2024 and llamafile), llama-bench
  ['unknown-flag', /^error: (?:invalid|unknown) argument: (-\S*)/, (m) => [m[1]]],
  ['unknown-flag', /^error: invalid parameter for argument: (-\S+)/, (m) => [m[1]]],
  ['bad-value', /^error while handling argument "(-[^"]+)"/, (m) => [m[1]]],
  ['unknown-flag', /^(?:\S+: )?(--?[A-Za-z][\w-]*) unknown argument$/, (m) => [m[1]]],
  // getopts (bash) and getopt(1)
  ['unknown-flag', /^(?:\S+: )?(?:illegal|invalid) option -- '?(\w)'?$/, (m) => [`-${m[1]}`]],
  ['unknown-flag', /^(?:\S+: )?unrecognized option '(--?[^']+)'/, (m) => [m[1].replace(/=.*$/, '')]],
  ['bad-value', /^(?:\S+: )?option requires an argument -- '?(\w)'?$/, (m) => [`-${m[1]}`]],
];

/**
 * argparse's required list: option strings as flags, positionals by name (`model_tag`), a paste's
 * trailing noise after a name dropped.
 */
function requiredNames(list: string): string[] {
  return list.split(/,\s*/).flatMap((item) => {
    const t = item.trim();
    if (t.startsWith('-')) return flagTokens(t).slice(0, 1);
    const name = /^[A-Za-z_][\w.-]*/.exec(t);
    return name ? [name[0]] : [];
  });
}

/** llama-bench prints `error: <why>` before `invalid parameter for argument: X` when X's value was refused. */
const afterValueError = (r: Rejection, previous: string | null): boolean =>
  /^error: invalid parameter for argument/.test(r.line) && previous !== null && /^error: /.test(previous);

/** True when a refusal lists its flags on the lines after it (clap's required arguments). */
const listsBelow = (r: Rejection) => r.kind === 'missing-required' && /not provided:?$/.test(r.line);

/**
 * The value argparse refused and the choices it offers: `invalid choice: 'x' (choose from 'a', 'b')`
 * (3.12.8+ and 3.13 print the choices unquoted), `invalid int value: 'x'`.
 */
function refusedValue(line: string): Pick<Rejection, 'value' | 'choices'> {
  const m = /: invalid (?:choice|\w+ value): '([^']{0,200})'(?: \(choose from ([^)]{0,2000})\))?/.exec(line);
  if (!m) return {};
  if (m[2] === undefined) return { value: m[1] };
  const choices = m[2].split(/,\s*/).map((c) => c.trim().replace(/^'(.*)'$/, '$1'));
  return { value: m[1], choices };
}

/** The refusal a line prints, or null. */
function refusalOf(line: string): Rejection | null {
  for (const [kind, re, names] of REFUSALS) {
    const m = re.exec(line);
    if (m)
      return { kind, flags: names(m).filter((f): f is string => Boolean(f)), line, ...refusedValue(line) };
  }
  return null;
}

/** The refusals printed in a tool's output, in order. */
export function readRejections(text: string): Rejection[] {
  if (badInput(text)) return [];
  const out: Rejection[] = [];
  let listing: Rejection | null = null;
  /** The last non-empty line that was no refusal. */
  let previous: string | null = null;
  for (const raw of cleanLines(text)) {
    const line = raw.trim();
    if (listing && /^(--?[A-Za-z]|<)/.test(line) && raw.startsWith(' ')) {
      listing.flags.push(...flagTokens(line).slice(0, 1));
      continue;
    }
    listing = null;
    if (line === '') continue;
    // commander and click put their suggestion on the next line: keep it with the refusal
    const last = out[out.length - 1];
    if (last && /^\(?(Did you mean|Possible options)/.test(line)) {
      last.line = `${last.line} ${line}`;
      continue;
    }
    const r = refusalOf(line);
    if (!r) {
      previous = line;
      continue;
    }
    if (afterValueError(r, previous)) r.kind = 'bad-value';
    out.push(r);
    if (listsBelow(r)) listing = r;
    previous = null;
  }
  return out;
}

/** One phrase per refusal for a finding: "rejected --x", "missing required arguments: --base-url", … */
export function describeRefusal(r: Rejection): string {
  const flags = r.flags.join(', ');
  switch (r.kind) {
    case 'missing-required':
      return `missing required arguments: ${flags || 'unnamed'} (the tool accepts ${r.flags.length === 1 ? 'the flag' : 'them'} but needs ${r.flags.length === 1 ? 'it' : 'them'}; ${r.line})`;
    case 'bad-value': {
      const value = r.value === undefined ? 'the value' : `the value '${r.value}'`;
      const choices = r.choices ? `choose from ${r.choices.join(', ')}; ` : '';
      return `refused ${value} of ${flags || 'an argument'} (${choices}${r.line})`;
    }
    case 'ambiguous':
      return `ambiguous ${flags} (${r.line})`;
    case 'conflict':
      return `refused ${flags} together (${r.line})`;
    default:
      return `rejected ${flags || 'the arguments'} (${r.line})`;
  }
}
