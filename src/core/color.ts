// The one rule for terminal colour: only on a TTY, never with NO_COLOR set or TERM=dumb.

export function wantsColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}
