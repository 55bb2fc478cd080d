// Validation of the plan's extra HTTP headers, done once where a target is first addressed, so a
// header that cannot be sent is reported as the plan mistake it is (naming the header, never its
// value, which may be a secret) instead of as a connection failure.

import { BenchgateError } from '../core/errors.js';

const HEADER_NAME_OK = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Printable ASCII and tab: no line break, no control character, no non-ASCII byte. */
const HEADER_VALUE_OK = /^[\t\x20-\x7e]*$/;

/** Why the header cannot be sent, or null when it can. Never quotes the value. */
export function headerProblem(name: string, value: string): string | null {
  if (!HEADER_NAME_OK.test(name)) return `the header name "${name}" is not a valid HTTP token`;
  if (!HEADER_VALUE_OK.test(value))
    return `the value of header "${name}" holds a line break, a control character or a non-ASCII character`;
  return null;
}

/** The first problem among `headers`, or null. */
export function headersProblem(headers: Record<string, string> | undefined): string | null {
  for (const [name, value] of Object.entries(headers ?? {})) {
    const p = headerProblem(name, value);
    if (p !== null) return p;
  }
  return null;
}

/** Throws a plan error (exit 2) naming the first header that cannot be sent. */
export function assertSendableHeaders(headers: Record<string, string> | undefined): void {
  const p = headersProblem(headers);
  if (p !== null)
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `target.headers: ${p}; HTTP header values must be printable ASCII on one line.`,
    );
}
