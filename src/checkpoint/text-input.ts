// The first test every reader of a command's output makes: is this text at all? Empty output, binary
// garbage and outputs far larger than the command prints are said so in one sentence, before any
// line is handed to a regular expression.

/** Why `text` cannot be the output of a command printing at most `maxChars`, or null when it can. */
export function notText(text: string, maxChars: number): string | null {
  if (text.trim() === '') return 'the output is empty';
  if (text.length > maxChars) return `the output is ${text.length} characters, far more than expected`;
  // NUL bytes, or a high share of control or replacement characters, in the first 4 KB
  const sample = text.slice(0, 4096);
  const junk = sample.match(/[\u0000-\u0008\u000e-\u001a\u001c-\u001f\ufffd]/g)?.length ?? 0;
  if (sample.includes('\u0000') || junk > sample.length / 20) return 'the output is binary, not text';
  return null;
}
