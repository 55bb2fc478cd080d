// What a help says when its option list is not all there: argparse's usage block read as the flag list
// when the help has no option section (a paste of the usage and the error line only), and whether a
// listing was cut (a usage block the text ends inside, an option section whose last line lost the
// description every other option has). A flag missing from a cut listing is unknown, never "missing".

import { flagsIn } from './help-refusals.js';

/** The flags of an argparse usage block and whether the text ended inside it. */
export interface UsageFlags {
  flags: string[];
  /** Why the block may not list every option, or null when it ends before the next line. */
  cut: string | null;
}

/**
 * argparse's `usage: prog [-h] [--flag FLAG] …` block, continued by lines indented under it, read for
 * its flags. argparse lists every optional argument there (only help=SUPPRESS hides one). Null when
 * there is no such block or it names no flag.
 */
export function argparseUsageFlags(lines: readonly string[]): UsageFlags | null {
  const start = lines.findIndex((l) => /^usage: \S/.test(l));
  if (start < 0) return null;
  const block = [lines[start].slice('usage: '.length)];
  let end = start + 1;
  while (end < lines.length && /^\s{2,}\S/.test(lines[end])) block.push(lines[end++]);
  const flags = [...new Set(flagsIn(` ${block.join(' ')}`).map((f) => f.replace(/=.*$/, '')))];
  if (flags.length === 0) return null;
  const ended = lines.slice(end).every((l) => l.trim() === '');
  const cut = ended ? 'the text ends inside the usage block' : null;
  return { flags, cut };
}

/** One option line of a help and whether its description is there (on the line, or on the lines below). */
export interface OptionLine {
  line: string;
  described: boolean;
}

/** An option line's own description column: two spaces, then text, after its flags and metavar. */
export const describedInline = (line: string): boolean => /^\s*(?:\*\s+)?-.*?\S\s{2,}\S/.test(line);

/**
 * An option section that ends the text on an option line without the description every other option
 * line has: the paste was cut after it (options below it may exist).
 */
export function optionListCut(options: readonly OptionLine[], textLines: readonly string[]): string | null {
  if (options.length < 4) return null;
  const last = options[options.length - 1];
  const lastText = textLines.filter((l) => l.trim() !== '').pop();
  if (lastText !== last.line || last.described) return null;
  if (!options.slice(0, -1).every((o) => o.described)) return null;
  return `the text ends on an option line without its description (${last.line.trim()}), so it was cut`;
}
