// `run --kill-leftovers` takes an optional PID list, and commander would take the plan path after a bare
// flag as that list: main.ts rewrites a bare flag before parsing, whichever command is loaded.

/** A comma-separated list of PIDs, the value `--kill-leftovers` may carry. */
const PID_LIST = /^\d+(,\d+)*$/;

/** A bare `--kill-leftovers` not followed by a PID list becomes `--kill-leftovers=` before parsing. */
export function bareKillLeftoversFlag(argv: readonly string[]): string[] {
  return argv.map((a, i) =>
    a === '--kill-leftovers' && !PID_LIST.test(argv[i + 1] ?? '') ? '--kill-leftovers=' : a,
  );
}
