// Turns a plan command template such as `python3 {path} --help` into an argv: split on whitespace
// (single and double quotes group words, a backslash keeps the next character, a backslash-newline
// joins lines as in a shell script), `{path}` replaced by the path as one argument. Never a shell.

import { BenchgateError } from '../core/errors.js';

export function splitCommand(template: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  let escaped = false;
  for (const ch of template) {
    if (escaped) {
      escaped = false;
      // backslash-newline continues the line; in double quotes only \" \\ and \$ are escapes
      if (ch === '\n') continue;
      if (quote === '"' && !'"\\$`'.includes(ch)) cur += '\\';
      cur += ch;
      inWord = true;
    } else if (ch === '\\' && quote !== "'") {
      escaped = true;
    } else if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (quote)
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `Expected a closing ${quote} in the command "${template}".`,
    );
  if (escaped) cur += '\\';
  if (inWord || escaped) out.push(cur);
  return out;
}

export function commandArgv(template: string, path: string): string[] {
  return splitCommand(template).map((w) => w.split('{path}').join(path));
}
