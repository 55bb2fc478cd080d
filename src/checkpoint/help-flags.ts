// Reads what a tool's command-line interface accepts from its help: the flags declared on the option
// lines of the help's option sections (never prose or an echoed command line), as argparse (3.8–3.13),
// click, typer/rich, commander, yargs, Go's flag package, cobra, clap (v2–v4) and scripts with an
// "Options:" section print them; with no option section, argparse's usage block (help-usage.ts). A help
// with neither (a getopts script that prints its usage line only) is unreadable, never "accepts"; a cut
// listing leaves the flags it does not show unknown. argparse's prefix matching (allow_abbrev, on by
// default) and Go's "one or two dashes" are applied when judging flags.

import { type ReadResult, readUnreadable, readValue } from '../core/read-result.js';
import { flagsIn } from './help-refusals.js';
import { badInput, cleanLines } from './help-text.js';
import { argparseUsageFlags, describedInline, type OptionLine, optionListCut } from './help-usage.js';

export { describeRefusal, type RefusalKind, type Rejection, readRejections } from './help-refusals.js';

export type HelpStyle =
  | 'argparse'
  | 'click'
  | 'typer'
  | 'commander'
  | 'yargs'
  | 'go-flag'
  | 'cobra'
  | 'clap'
  | 'unknown';

export interface HelpReading {
  flags: Set<string>;
  style: HelpStyle;
  /** Where the flags were read: the option sections, or (argparse, no option section) the usage block. */
  source: 'options' | 'usage';
  /** Why the listing may not hold every option (a cut paste), or null: a flag not in it is then unknown. */
  cut: string | null;
}

export type FlagVerdict =
  | { flag: string; verdict: 'declared' }
  | { flag: string; verdict: 'abbreviation'; full: string }
  | { flag: string; verdict: 'ambiguous'; candidates: string[] }
  | { flag: string; verdict: 'missing' }
  | { flag: string; verdict: 'unknown'; reason: string };

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** Option lines are indented a little; description continuations sit at the help column (~24). */
const MAX_OPTION_INDENT = 12;

/** Section headers that never hold option lines. */
const NON_OPTION_SECTION =
  /^(usage|examples?|commands?|subcommands|positional arguments|arguments|args|description|notes?|see also|error)\b/i;
const SECTION_HEADER = /^[A-Za-z][^:]{0,78}:$/;
/** Go's flag package: `Usage of ./loadgen:` heads the flag list itself. */
const GO_USAGE = /^Usage of \S.*:$/;

const STYLES: [HelpStyle, (has: (re: RegExp) => boolean) => boolean][] = [
  ['go-flag', (has) => has(GO_USAGE)],
  ['cobra', (has) => has(/^Flags:$/) && has(/^\s+-h, --help\s+help for /)],
  ['clap', (has) => has(/\s(Print|Prints) help( information)?$/)],
  ['argparse', (has) => has(/^usage: /) && (has(/^(options|optional arguments):$/) || has(/(^|: )error: /))],
  ['click', (has) => has(/^Usage: .*\[OPTIONS\]/) || has(/^Try '.*--help' for help/)],
  ['commander', (has) => has(/^Usage: .*\[options\]/)],
  ['yargs', (has) => has(/\[(boolean|number|string|array|count)\]\s*$/)],
  ['argparse', (has) => has(/^usage: /)],
];

function styleOf(text: string, lines: string[]): HelpStyle {
  // typer draws its sections in rich boxes (opened up by cleanLines)
  if (/╭─ (Options|Arguments|Commands) ─/.test(text.slice(0, 200_000))) return 'typer';
  const has = (re: RegExp) => lines.some((l) => re.test(l));
  return STYLES.find(([, test]) => test(has))?.[0] ?? 'unknown';
}

/**
 * The flags of an option line: the leading columns (split at runs of two spaces) that start with a
 * dash, so a description column never contributes: `-n, --num-prompts N   Number of …`,
 * `--stream / --no-stream   Stream …`, typer's `*  --base-url   TEXT …` and `--stream   --no-stream`.
 */
function optionLineFlags(trimmed: string): string[] {
  const columns = trimmed.replace(/^\*\s+/, '').split(/\s{2,}/);
  const out: string[] = [];
  for (const column of columns) {
    if (!column.startsWith('-')) break;
    for (const f of flagsIn(` ${column}`)) out.push(f.replace(/=.*$/, ''));
  }
  return out;
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
  const optionLines: OptionLine[] = [];
  let inOptions = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const previous = optionLines[optionLines.length - 1];
    // a description on the lines below its option line, deeper than the option
    if (previous && !previous.described && indentOf(line) > indentOf(previous.line) + 2)
      previous.described = true;
    const indent = line.length - line.trimStart().length;
    if (indent <= 1 && (SECTION_HEADER.test(line.trim()) || GO_USAGE.test(line.trim()) || indent === 0)) {
      const head = line.trim();
      inOptions = GO_USAGE.test(head) || (SECTION_HEADER.test(head) && !NON_OPTION_SECTION.test(head));
      continue;
    }
    const trimmed = line.trimStart();
    if (!inOptions || indent > MAX_OPTION_INDENT || !/^(\*\s+)?-/.test(trimmed)) continue;
    optionLines.push({ line, described: describedInline(line) });
    for (const f of optionLineFlags(trimmed)) flags.add(f);
  }
  const style = styleOf(text, lines);
  if (flags.size > 0)
    return readValue({ flags, style, source: 'options', cut: optionListCut(optionLines, lines) });
  const usage = style === 'argparse' ? argparseUsageFlags(lines) : null;
  if (usage) return readValue({ flags: new Set(usage.flags), style, source: 'usage', cut: usage.cut });
  return readUnreadable(`no option lines in an options section${exit}`, text);
}

/** The declared flag a wanted flag names: itself, or with Go's flag package the other dash count. */
function declaredAs(help: HelpReading, flag: string): string | null {
  if (help.flags.has(flag)) return flag;
  if (help.style !== 'go-flag') return null;
  const other = flag.startsWith('--') ? flag.slice(1) : `-${flag}`;
  return help.flags.has(other) ? other : null;
}

/**
 * How the tool would take each wanted flag (`--flag=value` judged by its flag): declared, an argparse
 * abbreviation of exactly one declared long option, ambiguous, or missing.
 */
export function judgeFlags(help: HelpReading, wanted: string[]): FlagVerdict[] {
  const longs = [...help.flags].filter((f) => f.startsWith('--'));
  return wanted.map((w): FlagVerdict => {
    const flag = w.replace(/=.*$/, '');
    if (declaredAs(help, flag)) return { flag: w, verdict: 'declared' };
    // a cut listing may hold the flag, or a longer one that makes its prefix ambiguous, below the cut
    if (help.cut) return { flag: w, verdict: 'unknown', reason: help.cut };
    if (help.style === 'argparse' && flag.startsWith('--') && flag.length > 2) {
      const candidates = longs.filter((f) => f.startsWith(flag));
      if (candidates.length === 1) return { flag: w, verdict: 'abbreviation', full: candidates[0] };
      if (candidates.length > 1) return { flag: w, verdict: 'ambiguous', candidates };
    }
    return { flag: w, verdict: 'missing' };
  });
}
