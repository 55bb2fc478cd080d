// Reads what a tool's command-line interface accepts, as argparse, click, commander and yargs print it:
// the flags declared on option lines of the help's option sections (never the usage block, prose or an
// echoed command line), and the rejections these libraries print on bad flags (`error: unrecognized
// arguments: --x`, `Error: No such option: --x`, `error: unknown option '--x'`, invalid choices and
// values). argparse's prefix matching (allow_abbrev, on by default) is applied when judging flags.

import { type ReadResult, readUnreadable, readValue } from '../core/read-result.js';
import { notText } from './text-input.js';

export type HelpStyle = 'argparse' | 'click' | 'commander' | 'yargs' | 'unknown';

export interface HelpReading {
  flags: Set<string>;
  style: HelpStyle;
}

/** A refusal the tool printed: the flags it names and the line that says so. */
export interface Rejection {
  flags: string[];
  line: string;
}

export type FlagVerdict =
  | { flag: string; verdict: 'declared' }
  | { flag: string; verdict: 'abbreviation'; full: string }
  | { flag: string; verdict: 'ambiguous'; candidates: string[] }
  | { flag: string; verdict: 'missing' };

/** Help texts are a few hundred KB at most (vLLM's is the largest seen); more is not help. */
const MAX_HELP_CHARS = 2_000_000;
const MAX_LINE_CHARS = 2_000;
/** Option lines are indented a little; description continuations sit at the help column (~24). */
const MAX_OPTION_INDENT = 12;

const FLAG = /(?:^|[\s,[|(/])(--?[A-Za-z][\w-]*)/g;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

function flagsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FLAG)) out.push(m[1]);
  return out;
}

function cleanLines(text: string): string[] {
  return text
    .replace(/--\[no-\]([\w-]+)/g, '--$1, --no-$1')
    .split(/\r?\n|\r/)
    .map((l) => (l.length > MAX_LINE_CHARS ? '' : l.replace(ANSI, '').replace(/\t/g, '    ')));
}

const badInput = (text: string) => notText(text, MAX_HELP_CHARS);

/** Section headers that never hold option lines. */
const NON_OPTION_SECTION =
  /^(usage|examples?|commands?|subcommands|positional arguments|arguments|description|notes?|see also)\b/i;
const SECTION_HEADER = /^[A-Za-z][^:]{0,78}:$/;

function styleOf(lines: string[]): HelpStyle {
  const has = (re: RegExp) => lines.some((l) => re.test(l));
  if (has(/^usage: /) && (has(/^(options|optional arguments):$/) || has(/(^|: )error: /))) return 'argparse';
  if (has(/^Usage: .*\[OPTIONS\]/) || has(/^Try '.*--help' for help/)) return 'click';
  if (has(/^Usage: .*\[options\]/)) return 'commander';
  if (has(/\[(boolean|number|string|array|count)\]\s*$/)) return 'yargs';
  if (has(/^usage: /)) return 'argparse';
  return 'unknown';
}

/**
 * The flags declared on option lines of the help's option sections. Unreadable when the output is
 * not help (empty, binary, huge) or declares no option, with the exit status when it was not 0.
 */
export function readHelp(text: string, exitCode: number | null = 0): ReadResult<HelpReading> {
  const exit = exitCode === 0 ? '' : ` (exit status ${exitCode})`;
  const bad = badInput(text);
  if (bad) return readUnreadable(`${bad}${exit}`, text);
  const lines = cleanLines(text);
  const flags = new Set<string>();
  let inOptions = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const indent = line.length - line.trimStart().length;
    if (indent === 0) {
      const head = line.trimEnd();
      inOptions = SECTION_HEADER.test(head) && !NON_OPTION_SECTION.test(head);
      continue;
    }
    const trimmed = line.trimStart();
    if (!inOptions || indent > MAX_OPTION_INDENT || !trimmed.startsWith('-')) continue;
    // the option spec ends at the first run of two spaces (the description column)
    const spec = trimmed.split(/\s{2,}/)[0];
    for (const f of flagsIn(` ${spec}`)) flags.add(f.replace(/=.*$/, ''));
  }
  if (flags.size === 0) return readUnreadable(`no option lines in an options section${exit}`, text);
  return readValue({ flags, style: styleOf(lines) });
}

const dashed = (names: string[]) =>
  names
    .map((n) => n.trim().replace(/^['"]|['"]$/g, ''))
    .filter((n) => n !== '')
    .map((n) => (n.startsWith('-') ? n : n.length === 1 ? `-${n}` : `--${n}`));
const flagTokens = (s: string) =>
  s
    .split(/[\s,]+/)
    .filter((t) => /^--?[A-Za-z]/.test(t))
    .map((t) => t.replace(/=.*$/, ''));
const firstLong = (spec: string) => {
  const fs = flagsIn(` ${spec}`);
  return fs.find((f) => f.startsWith('--')) ?? fs[0];
};

/** What each library prints when it refuses a flag or a value; each returns the flags it names. */
const REJECTIONS: [RegExp, (m: RegExpExecArray) => string[]][] = [
  // argparse
  [/^(?:\S+: )?error: unrecognized arguments?: (.+)$/, (m) => flagTokens(m[1])],
  [/^(?:\S+: )?error: ambiguous option: (\S+) could match/, (m) => [m[1].replace(/=.*$/, '')]],
  [
    /^(?:\S+: )?error: argument (\S+): (?:invalid|expected|ignored|not allowed)/,
    (m) => [firstLong(m[1].replace(/\//g, ' '))],
  ],
  [/^(?:\S+: )?error: the following arguments are required: (.+)$/, (m) => flagTokens(m[1])],
  // click
  [/^Error: [Nn]o such option:? (\S+)/, (m) => [m[1].replace(/[.'"]+$/, '').replace(/^['"]/, '')]],
  [/^Error: Invalid value for (.+?): /, (m) => [firstLong(m[1].replace(/['"/]/g, ' '))]],
  [/^Error: Missing option (.+?)\.?$/, (m) => [firstLong(m[1].replace(/['"/]/g, ' '))]],
  [/^Error: Got unexpected extra arguments? \((.*)\)/, (m) => flagTokens(m[1])],
  // commander
  [/^error: unknown option '([^']+)'/, (m) => [m[1].replace(/=.*$/, '')]],
  [/^error: option '([^']+)' argument '[^']*' is invalid/, (m) => [firstLong(m[1])]],
  [/^error: required option '([^']+)' not specified/, (m) => [firstLong(m[1])]],
  // yargs
  [/^Unknown arguments?: (.+)$/, (m) => dashed(m[1].split(','))],
  [/^Invalid values?:/, () => []],
];

/** The refusals printed in a tool's output (any of argparse, click, commander, yargs). */
export function readRejections(text: string): Rejection[] {
  if (badInput(text)) return [];
  const out: Rejection[] = [];
  for (const raw of cleanLines(text)) {
    const line = raw.trim();
    if (line === '') continue;
    // commander and click put their suggestion on the next line: keep it with the refusal
    const last = out[out.length - 1];
    if (last && /^\(?(Did you mean|Possible options)/.test(line)) {
      last.line = `${last.line} ${line}`;
      continue;
    }
    for (const [re, names] of REJECTIONS) {
      const m = re.exec(line);
      if (!m) continue;
      out.push({ flags: names(m).filter((f): f is string => Boolean(f)), line });
      break;
    }
  }
  return out;
}

/**
 * How the tool would take each wanted flag (`--flag=value` judged by its flag): declared, an argparse
 * abbreviation of exactly one declared long option, ambiguous, or missing.
 */
export function judgeFlags(help: HelpReading, wanted: string[]): FlagVerdict[] {
  const longs = [...help.flags].filter((f) => f.startsWith('--'));
  return wanted.map((w): FlagVerdict => {
    const flag = w.replace(/=.*$/, '');
    if (help.flags.has(flag)) return { flag: w, verdict: 'declared' };
    if (help.style === 'argparse' && flag.startsWith('--') && flag.length > 2) {
      const candidates = longs.filter((f) => f.startsWith(flag));
      if (candidates.length === 1) return { flag: w, verdict: 'abbreviation', full: candidates[0] };
      if (candidates.length > 1) return { flag: w, verdict: 'ambiguous', candidates };
    }
    return { flag: w, verdict: 'missing' };
  });
}
