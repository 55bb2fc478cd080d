// The lines of a tool's help or error output as the help readers see them: ANSI escapes removed, tabs
// as spaces, `--[no-]flag` spelt out, and rich's boxes (typer) opened up: `╭─ Options ──╮` becomes the
// section header `Options:`, `│ … │` the line inside it. Lines over a bound are blanked, never scanned.

import { notText } from './text-input.js';

/** Help texts are a few hundred KB at most (vLLM's is the largest seen); more is not help. */
const MAX_HELP_CHARS = 2_000_000;
const MAX_LINE_CHARS = 2_000;
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

/** Why the text cannot be a tool's help or error output, or null. */
export const badInput = (text: string): string | null => notText(text, MAX_HELP_CHARS);

/** A rich box's top border carrying its title, `╭─ Options ───╮`, or null. */
const boxTitle = (l: string): string | null => /^\s*╭─+\s*(.*?)\s*─+╮\s*$/.exec(l)?.[1] ?? null;

function unbox(line: string): string {
  const title = boxTitle(line);
  if (title !== null) return `${title}:`;
  if (/^\s*╰─+╯\s*$/.test(line)) return '';
  // `│ *  --base-url   TEXT  Server base URL. │`: the row inside, indented as an option line
  const inner = /^\s*│(.*?)│?\s*$/.exec(line);
  return inner ? ` ${inner[1].trimEnd()}` : line;
}

export function cleanLines(text: string): string[] {
  return text
    .replace(/--\[no-\]([\w-]+)/g, '--$1, --no-$1')
    .split(/\r?\n|\r/)
    .map((l) => (l.length > MAX_LINE_CHARS ? '' : unbox(l.replace(ANSI, '').replace(/\t/g, '    '))));
}
