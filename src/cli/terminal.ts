// Terminal I/O kept in cli/ with the rest of the terminal wiring: for the matrix commands (run, demo) logs and
// a rewritten progress line on stderr (plain throttled lines on a non-TTY stderr or with NO_COLOR, none with --json), results on stdout, a y/N
// confirmation on a TTY; for every long command, SIGINT/SIGTERM → abort, write what is complete, exit 130/143.

import { createInterface } from 'node:readline/promises';
import { BenchgateError } from '../core/errors.js';
import { liveStderr, throttledLines } from '../load/progress.js';

export interface MatrixConsole {
  interactive: boolean;
  log: (line: string) => void;
  progress: (line: string) => void;
  print: (text: string) => void;
}

export function matrixConsole(opts: { json: boolean }): MatrixConsole {
  const tty = liveStderr() && !opts.json;
  // piped (or NO_COLOR): progress lines are plain lines, a repeated one at most every 10 s
  const plain = throttledLines((l) => process.stderr.write(`${l}\n`));
  let progressShown = false;
  const clear = () => {
    if (progressShown) process.stderr.write('\r\x1b[K');
    progressShown = false;
  };
  return {
    interactive: Boolean(process.stderr.isTTY) && !opts.json && Boolean(process.stdin.isTTY),
    log: (line) => {
      clear();
      process.stderr.write(`${line}\n`);
    },
    progress: (line) => {
      if (!tty) {
        if (line && !opts.json) plain(line);
        return;
      }
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

/** Exit status after an interrupt: 128 + the signal number, as shells and supervisors expect. */
const INTERRUPT_EXIT: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

/** How long a forced exit waits for its last clean-up (ending launched servers) before it quits anyway. */
const FORCED_EXIT_CLEANUP_MS = 5000;

/**
 * Runs `fn` with an AbortSignal that SIGINT and SIGTERM trigger alike: the command stops, writes what is
 * complete and its summary, and returns `interruptExit()` (130 after SIGINT, 143 after SIGTERM). A second
 * signal quits at once with that status, after `beforeForcedExit` (ending the servers `run` launched);
 * a third quits without waiting for it.
 */
export async function withInterrupt<T>(
  fn: (signal: AbortSignal, interruptExit: () => number) => Promise<T>,
  opts: { beforeForcedExit?: () => Promise<unknown> } = {},
): Promise<T> {
  const ac = new AbortController();
  let received: 'SIGINT' | 'SIGTERM' = 'SIGINT';
  let quitting = false;
  const onSignal = (sig: 'SIGINT' | 'SIGTERM') => {
    if (quitting) process.exit(INTERRUPT_EXIT[received]);
    if (ac.signal.aborted) {
      quitting = true;
      const last = opts.beforeForcedExit?.() ?? Promise.resolve();
      const limit = new Promise((r) => setTimeout(r, FORCED_EXIT_CLEANUP_MS));
      void Promise.race([last.catch(() => undefined), limit]).then(() =>
        process.exit(INTERRUPT_EXIT[received]),
      );
      return;
    }
    received = sig;
    process.stderr.write(
      `\nbenchgate: ${sig} received; stopping and writing what is complete (${sig === 'SIGINT' ? 'Ctrl-C' : 'a second signal'} again to quit now).\n`,
    );
    ac.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await fn(ac.signal, () => INTERRUPT_EXIT[received]);
  } catch (e) {
    // what failed once the stop was asked for (a request or a wait it cut short) is the stop itself
    if (!ac.signal.aborted || !(e instanceof BenchgateError)) throw e;
    process.stderr.write(`benchgate: stopped: ${e.message} [${e.code}]\n`);
    return INTERRUPT_EXIT[received] as T;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    // stopped and cleaned up: a further signal while the last lines are written quits with the stop's code,
    // never by the signal's default (which would end the process with no exit code at all)
    if (ac.signal.aborted) {
      const quit = () => process.exit(INTERRUPT_EXIT[received]);
      process.once('SIGINT', quit);
      process.once('SIGTERM', quit);
    }
  }
}
