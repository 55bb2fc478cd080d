// Writes one run directory (layout.ts). requests.jsonl is appended synchronously, one line per
// completed request, so a crash or SIGKILL loses at most the requests in flight; JSON files are
// replaced atomically (write to a temp file, then rename) so a reader never sees half a file. A failed write
// (disk full, quota, read-only) is BG_E_DISK naming the file; no temp file or partial line is left.

import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { BenchgateError, isBenchgateError } from '../core/errors.js';
import { redactDeep, redactString } from '../core/redact.js';
import { wellFormedReplacer } from '../core/well-formed.js';
import type { LevelSummary, RunSummary } from '../metrics/summary.js';
import { withholdUnsupported } from '../metrics/tail-samples.js';
import type { RequestRecord } from '../records/request-record.js';
import { resultsWriteError } from './free-space.js';
import {
  levelFile,
  MANIFEST_FILE,
  type Manifest,
  REQUESTS_FILE,
  SUMMARY_CSV_FILE,
  SUMMARY_FILE,
} from './layout.js';
import { summaryCsv } from './summary-csv.js';

export interface RunStore {
  readonly dir: string;
  readonly runId: string;
  appendRecord(r: RequestRecord): void;
  writeLevel(summary: LevelSummary): void;
  /** Merges into the manifest and rewrites it. */
  updateManifest(patch: Partial<Manifest>): void;
  writeSummary(summary: RunSummary, percentiles: number[]): void;
  close(): void;
  /**
   * Aborted when a write fails (disk full, quota, read-only): pass it to the level runner so the level
   * stops at once. appendRecord does not throw; the other writers throw the same error.
   */
  readonly writeFailed: AbortSignal;
  /** The first failed write (BG_E_DISK naming the file), or null. */
  readonly writeError: BenchgateError | null;
}

/** Replaces `path` with `text` atomically (temp file, then rename): a reader sees the old or the new file. */
export function writeTextAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (e) {
    try {
      unlinkSync(tmp); // no empty or half temp file is left behind
    } catch {
      // it was never created
    }
    throw resultsWriteError(path, e);
  }
}

/** Strict JSON (no unpaired surrogate escapes, core/well-formed.ts), written whole or not at all. */
export function writeJsonAtomic(path: string, value: unknown): void {
  writeTextAtomic(path, `${JSON.stringify(value, wellFormedReplacer, 2)}\n`);
}

/**
 * The one writer of manifest.json (a run's, a level's, a matrix config's assembled one): header values,
 * secret-named keys and the secret values in use are redacted before anything reaches the disk.
 */
export function writeManifest(dir: string, manifest: Manifest, secrets: readonly string[] = []): Manifest {
  const clean = redactDeep(manifest, secrets);
  writeJsonAtomic(join(dir, MANIFEST_FILE), clean);
  return clean;
}

function stamp(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/** `<UTC yyyymmdd-hhmmss>-<name>`, with `-2`, `-3`… when that directory already exists. */
export function newRunId(outDir: string, name: string, now = new Date()): string {
  const safe = name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'bench';
  const base = `${stamp(now)}-${safe}`;
  let id = base;
  for (let i = 2; existsSync(join(outDir, id)); i++) id = `${base}-${i}`;
  return id;
}

export interface CreateRunStoreOptions {
  outDir: string;
  /** Manifest without runId/schema (filled here). The plan is redacted before it is written. */
  manifest: Omit<Manifest, 'schema' | 'runId'>;
  /** Secret values in use (API key, header values): scrubbed from everything written. */
  secrets: string[];
  runId?: string;
  /** Write into exactly this directory (the matrix creates one per config/level); runId = its name. */
  runDir?: string;
}

function makeRunDir(opts: CreateRunStoreOptions): { dir: string; runId: string } {
  const runId = opts.runDir
    ? basename(opts.runDir)
    : (opts.runId ?? newRunId(opts.outDir, opts.manifest.name));
  const dir = opts.runDir ?? join(opts.outDir, runId);
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new BenchgateError(
      'BG_E_RUN_DIR',
      `cannot create the run directory "${dir}" (${(e as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  return { dir, runId };
}

type Guard = <T>(write: () => T) => T;

/**
 * requests.jsonl, appended one whole line per record with synchronous writes. A failed append cuts the
 * file back to its last complete line, closes it and reports through `guarded` (later appends are dropped).
 */
function requestsAppender(path: string, secrets: string[], guarded: Guard) {
  let fd: number | null = openSync(path, 'a');
  /** Bytes of requests.jsonl that end in a complete line: a failed append is cut back to this. */
  let completeBytes = fstatSync(fd).size;
  return {
    append(r: RequestRecord): void {
      if (fd === null) return;
      let line = JSON.stringify(r);
      if (r.error) line = redactString(line, secrets);
      const bytes = Buffer.from(`${line}\n`);
      try {
        for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off);
        completeBytes += bytes.length;
      } catch (e) {
        try {
          ftruncateSync(fd, completeBytes); // no partial last line
          closeSync(fd);
        } catch {
          // the file keeps what the filesystem kept; readers skip a torn last line
        }
        fd = null;
        try {
          guarded(() => {
            throw resultsWriteError(path, e);
          });
        } catch (err) {
          if (!isBenchgateError(err)) throw err;
        }
      }
    },
    close(): void {
      if (fd === null) return;
      try {
        fsyncSync(fd);
      } catch {
        // a failed flush of complete lines: the appends themselves reported any disk failure
      }
      closeSync(fd);
      fd = null;
    },
  };
}

export function createRunStore(opts: CreateRunStoreOptions): RunStore {
  const { dir, runId } = makeRunDir(opts);
  const secrets = opts.secrets.filter((s) => s.length >= 4);
  let writeError: BenchgateError | null = null;
  const failed = new AbortController();
  /** Runs one write; a disk failure becomes the store's first error (and stops the level), then is thrown. */
  const guarded: Guard = (write) => {
    try {
      return write();
    } catch (e) {
      if (isBenchgateError(e) && e.code === 'BG_E_DISK' && !writeError) {
        writeError = e;
        failed.abort();
      }
      throw e;
    }
  };
  let manifest: Manifest = guarded(() =>
    writeManifest(dir, { schema: 'benchgate.manifest/1', runId, ...opts.manifest } as Manifest, secrets),
  );
  const requests = requestsAppender(join(dir, REQUESTS_FILE), secrets, guarded);
  return {
    dir,
    runId,
    get writeError() {
      return writeError;
    },
    writeFailed: failed.signal,
    appendRecord: (r) => requests.append(r),
    writeLevel(summary) {
      guarded(() => writeJsonAtomic(join(dir, levelFile(summary.levelIndex)), withholdUnsupported(summary)));
    },
    updateManifest(patch) {
      manifest = guarded(() => writeManifest(dir, { ...manifest, ...patch }, secrets));
    },
    writeSummary(summary, percentiles) {
      guarded(() => {
        writeJsonAtomic(join(dir, SUMMARY_FILE), redactDeep(withholdUnsupported(summary), secrets));
        writeTextAtomic(join(dir, SUMMARY_CSV_FILE), summaryCsv(summary.levels, percentiles));
      });
    },
    close: () => requests.close(),
  };
}

/**
 * Ends a run store: the summary, the manifest's finishedAt, then close. On a full disk the store's
 * writeError already holds the first failed write (the caller throws it); other errors are thrown.
 */
export function finishRunStore(store: RunStore, summary: RunSummary, percentiles: number[]): void {
  try {
    store.writeSummary(summary, percentiles);
    store.updateManifest({ finishedAt: new Date().toISOString() });
  } catch (e) {
    if (!store.writeError) throw e;
  } finally {
    store.close();
  }
}
