// Terminal I/O for the matrix commands (run, demo), kept in cli/ with the rest of the terminal wiring: logs and a rewritten progress line on stderr (off for --json or a
// non-TTY stderr), results on stdout, a y/N confirmation on a TTY, and Ctrl-C → abort + tear down.

import { createInterface } from 'node:readline/promises';

export interface MatrixConsole {
  interactive: boolean;
  log: (line: string) => void;
  progress: (line: string) => void;
  print: (text: string) => void;
}

export function matrixConsole(opts: { json: boolean }): MatrixConsole {
  const tty = Boolean(process.stderr.isTTY) && !opts.json;
  let progressShown = false;
  const clear = () => {
    if (progressShown) process.stderr.write('\r\x1b[K');
    progressShown = false;
  };
  return {
    interactive: tty && Boolean(process.stdin.isTTY),
    log: (line) => {
      clear();
      process.stderr.write(`${line}\n`);
    },
    progress: (line) => {
      if (!tty) return;
      clear();
      if (line) {
        process.stderr.write(line.slice(0, (process.stderr.columns ?? 120) - 1));
        progressShown = true;
      }
    },
    print: (text) => {
      if (opts.json) return;
      clear();
      process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    },
  };
}

export async function askYesNo(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/** Runs `fn` with an AbortSignal that SIGINT/SIGTERM trigger (once: the matrix then tears down and stops). */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (ac.signal.aborted) process.exit(130);
    process.stderr.write(
      `\nbenchgate: ${sig} received; stopping the current server and saving what is complete (again to quit now).\n`,
    );
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await fn(ac.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
