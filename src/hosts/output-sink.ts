// Where a launched server's output enters benchgate: its stdout and stderr are cut into lines, each
// line scrubbed of secrets (core/redact-output.ts) before it is written to the output file or handed to
// onLine (the log tail behind progress lines, crash evidence and failure excerpts). Scrubbing whole lines
// catches a key the stream cut across two chunks. A line is at most MAX_LINE_CHARS: a longer run without
// a newline (a progress bar redrawn with \r) is written in pieces of that size.

import { createWriteStream, type WriteStream } from 'node:fs';
import { redactOutputLine } from '../core/redact-output.js';
import type { SpawnOptions } from './host.js';
import { isSecretLooking, redactArgv } from './redact-env.js';

export const MAX_LINE_CHARS = 64 * 1024;

/** The secret values a launch itself carries: credential env values, secret flags' values, and the caller's. */
export function launchSecrets(argv: readonly string[], opts: SpawnOptions): string[] {
  const out = [...(opts.secrets ?? [])];
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v !== '' && isSecretLooking(k, v)) out.push(v);
  const shown = redactArgv([...argv]);
  argv.forEach((a, i) => {
    if (shown[i] === a) return;
    const eq = a.indexOf('=');
    out.push(a.startsWith('-') && eq > 0 ? a.slice(eq + 1) : a);
  });
  return out.filter((s) => s.length >= 4);
}

export interface OutputSink {
  /** A chunk of the server's standard output, as it arrived. */
  stdout(chunk: string): void;
  /** A chunk of its standard error (cut into lines apart from stdout, so the two never splice a line). */
  stderr(chunk: string): void;
  /** The streams ended: the last partial lines are written, the file closed (resolves once it is). */
  end(): Promise<void>;
  /** A note of benchgate's own (not the server's) into the output file. */
  note(text: string): void;
}

/** Cuts one stream into lines of at most MAX_LINE_CHARS for `emit`; `flush` hands on the last partial line. */
function lineCutter(emit: (line: string) => void): { push(chunk: string): void; flush(): void } {
  let pending = '';
  const bounded = (l: string) => {
    for (let i = 0; i < l.length; i += MAX_LINE_CHARS) emit(l.slice(i, i + MAX_LINE_CHARS));
    if (l === '') emit('');
  };
  return {
    push(chunk) {
      const lines = (pending + chunk).split(/\r?\n/);
      pending = lines.pop() ?? '';
      for (const l of lines) bounded(l);
      while (pending.length > MAX_LINE_CHARS) {
        emit(pending.slice(0, MAX_LINE_CHARS));
        pending = pending.slice(MAX_LINE_CHARS);
      }
    },
    flush() {
      if (pending !== '') emit(pending);
      pending = '';
    },
  };
}

/** The sink for one launch's output: the file and onLine of `opts`, every line scrubbed first. */
export function openOutputSink(argv: readonly string[], opts: SpawnOptions): OutputSink {
  const secrets = launchSecrets(argv, opts);
  const file: WriteStream | null = opts.outputFile
    ? createWriteStream(opts.outputFile, { flags: 'a' })
    : null;
  const emit = (raw: string) => {
    const line = redactOutputLine(raw, secrets);
    file?.write(`${line}\n`);
    opts.onLine?.(line);
  };
  const out = lineCutter(emit);
  const err = lineCutter(emit);
  return {
    stdout: out.push,
    stderr: err.push,
    end() {
      out.flush();
      err.flush();
      return new Promise((resolve) => (file ? file.end(resolve) : resolve()));
    },
    note(text) {
      file?.write(text);
    },
  };
}
