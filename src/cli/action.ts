// Maps errors from the library to exit codes and one clear stderr message. The only place where a
// thrown error becomes process output; a user mistake never prints a stack trace.

import { BenchgateError, isBenchgateError } from '../core/errors.js';

export function reportError(e: unknown): number {
  if (isBenchgateError(e)) {
    process.stderr.write(`benchgate: ${e.message} [${e.code}]\n`);
    for (const d of e.details) process.stderr.write(`  ${d}\n`);
    return e.exitCode;
  }
  const msg = e instanceof Error ? e.message : String(e);
  process.stderr.write(`benchgate: internal error: ${msg} [BG_E_INTERNAL]\n`);
  if (process.env.BENCHGATE_DEBUG && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  else process.stderr.write('  (set BENCHGATE_DEBUG=1 for a stack trace, and please report it)\n');
  return 1;
}

/** Wraps a command action: runs it, and sets the exit code from its result or its error. */
export function action<A extends unknown[]>(
  // biome-ignore lint/suspicious/noConfusingVoidType: actions that print and return nothing exit 0
  fn: (...args: A) => Promise<number | undefined | void>,
) {
  return async (...args: A): Promise<void> => {
    try {
      const code = await fn(...args);
      process.exitCode = typeof code === 'number' ? code : 0;
    } catch (e) {
      process.exitCode = reportError(e);
    }
  };
}

/** Parses a comma-separated list of positive numbers, naming the flag on error. */
export function parseNumberList(flag: string, value: string, opts: { integer?: boolean } = {}): number[] {
  const parts = value.split(',').map((s) => s.trim());
  const out: number[] = [];
  for (const p of parts) {
    const n = Number(p);
    if (p === '' || !Number.isFinite(n) || n <= 0 || (opts.integer && !Number.isInteger(n))) {
      throw new BenchgateError(
        'BG_E_USAGE',
        `${flag} expects a comma-separated list of positive ${opts.integer ? 'integers' : 'numbers'}; found "${p}" in "${value}".`,
      );
    }
    out.push(n);
  }
  return out;
}

export function parsePositive(
  flag: string,
  value: string,
  opts: { integer?: boolean; allowZero?: boolean } = {},
): number {
  const n = Number(value);
  const ok =
    value.trim() !== '' &&
    Number.isFinite(n) &&
    (opts.allowZero ? n >= 0 : n > 0) &&
    (!opts.integer || Number.isInteger(n));
  if (!ok) {
    throw new BenchgateError(
      'BG_E_USAGE',
      `${flag} expects a ${opts.allowZero ? 'non-negative' : 'positive'} ${opts.integer ? 'integer' : 'number'}; found "${value}".`,
    );
  }
  return n;
}

/** `--workers N|auto`: a positive integer, or `auto` (CPU cores − 1, resolved when the level runs). */
export function parseWorkers(value: string): number | 'auto' {
  return value.trim() === 'auto' ? 'auto' : parsePositive('--workers', value, { integer: true });
}
