// The one shape every reader of outside input returns (nvidia-smi output, help text, logs, command lines,
// endpoint bodies). A reader either read a value, or says it could not know (unknown, with why), or says
// the input was not in any form it understands (unreadable, with an excerpt). There is no "empty list"
// that could pass for "nothing found": checks must branch on `kind` before they may pass.

export type ReadResult<T> =
  | { kind: 'value'; value: T }
  | { kind: 'unknown'; reason: string }
  | { kind: 'unreadable'; reason: string; excerpt: string };

export function readValue<T>(value: T): ReadResult<T> {
  return { kind: 'value', value };
}

export function readUnknown<T>(reason: string): ReadResult<T> {
  return { kind: 'unknown', reason };
}

/** Longest excerpt kept from input that could not be read. */
export const EXCERPT_MAX_CHARS = 240;

/**
 * A short, printable excerpt of input: control characters (other than newline and tab) shown as
 * `\xNN`, cut to EXCERPT_MAX_CHARS with the total length stated, so binary garbage or 10 MB of text
 * can be quoted in a finding safely.
 */
export function excerptOf(input: string): string {
  const head = input.slice(0, EXCERPT_MAX_CHARS);
  const printable = head.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  if (input.length === 0) return '(empty)';
  return input.length > EXCERPT_MAX_CHARS ? `${printable}… (${input.length} characters in all)` : printable;
}

export function readUnreadable<T>(reason: string, input: string): ReadResult<T> {
  return { kind: 'unreadable', reason, excerpt: excerptOf(input) };
}

/** The value, or null for unknown and unreadable (for callers that already reported the reason). */
export function valueOrNull<T>(r: ReadResult<T>): T | null {
  return r.kind === 'value' ? r.value : null;
}

/** One sentence for a finding: why a read gave no value. Empty for a value. */
export function describeNoValue(r: ReadResult<unknown>): string {
  if (r.kind === 'unknown') return `unknown: ${r.reason}`;
  if (r.kind === 'unreadable') return `unreadable: ${r.reason} (got: ${r.excerpt})`;
  return '';
}
