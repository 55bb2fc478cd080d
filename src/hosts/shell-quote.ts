// POSIX shell quoting for argv elements sent to a remote shell (SSH). Every value is single-quoted
// unless it is made only of characters no shell treats specially, so plan values never run as shell.

const SAFE = /^[A-Za-z0-9_/.,:=@%+-]+$/;

/** Quotes one argument for a POSIX shell: `it's` → `'it'\''s'`; the empty string → `''`. */
export function shellQuote(arg: string): string {
  if (arg !== '' && SAFE.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Joins an argv into one shell command line, each element quoted. */
export function shellJoin(argv: string[]): string {
  return argv.map(shellQuote).join(' ');
}
