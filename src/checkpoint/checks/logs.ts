// Log freshness and assertions. Only lines after the LAST start marker count; the marker's time and
// the file's mtime are compared with the server process's start time, so a stale log fails with evidence.

import { describeNoValue, excerptOf } from '../../core/read-result.js';
import { logSources } from '../../engines/log-sources.js';
import {
  hasNoLogRecords,
  type LogLine,
  logicalLines,
  readLogLines,
  stripAnsi,
} from '../../engines/logtext.js';
import type { LogReading } from '../../engines/types.js';
import type { LogExpectation } from '../../plan/schema.js';
import { type CheckContext, excerpt, finding, type LogState } from '../context.js';
import type { Finding } from '../finding.js';
import { startFindings } from './log-start.js';

/** Log timestamps have second precision; a marker this far before the process start is still fine. */
const TOLERANCE_MS = 2000;

const list = (v: string | string[] | undefined): string[] =>
  v === undefined ? [] : Array.isArray(v) ? v : [v];

export function currentStartLine(reading: LogReading): number {
  return reading.startMarkerLines.length > 0 ? Math.max(...reading.startMarkerLines) : 1;
}

async function mtimeMs(ctx: CheckContext, path: string): Promise<number | null> {
  const r = await ctx.host.exec(['stat', '-c', '%Y', '--', path], { timeoutMs: 15_000 }).catch(() => null);
  const s = Number(r?.stdout.trim());
  return r?.code === 0 && Number.isFinite(s) && s > 0 ? s * 1000 : null;
}

/** First logical line (hard wraps re-joined) at or after physical line `from` and before `to` that passes. */
function firstMatch(
  lines: LogLine[],
  from: number,
  to: number,
  test: (l: string) => boolean,
): LogLine | null {
  return lines.find((l) => l.line >= from && l.line < to && test(l.text)) ?? null;
}

async function freshness(
  ctx: CheckContext,
  id: string,
  spec: LogExpectation,
  st: LogState,
  lines: string[],
  file: string,
): Promise<Finding> {
  const title = `Log is from the current server start (${spec.path})`;
  const r = st.reading;
  const lastIdx = r.startMarkerLines.indexOf(st.currentFromLine);
  const markerTime = lastIdx >= 0 ? (r.startMarkerTimes[lastIdx] ?? null) : null;
  const markerEv = {
    source: 'log' as const,
    where: `${spec.path}:${st.currentFromLine}`,
    excerpt: excerpt(lines[st.currentFromLine - 1] ?? ''),
  };
  if (r.startMarkerLines.length === 0) {
    return finding(id, title, 'warn', {
      required: false,
      found: 'no server start marker in the log; every line was judged',
      hint: 'Point expect.logs[].path at the log of the running server.',
    });
  }
  const startIso = ctx.server?.startTime ?? null;
  if (!startIso) {
    return finding(id, title, 'warn', {
      required: false,
      found: `last start marker at line ${st.currentFromLine}; the server process start time is unknown, so freshness was not proven`,
      evidence: [markerEv],
    });
  }
  const startMs = Date.parse(startIso);
  const procEv = {
    source: 'process' as const,
    where: `/proc/${ctx.server?.pid}/stat`,
    excerpt: `started ${startIso}`,
  };
  const mtime = await mtimeMs(ctx, file);
  const problems: string[] = [];
  if (markerTime && Date.parse(markerTime) < startMs - TOLERANCE_MS) {
    problems.push(
      `the last start marker (line ${st.currentFromLine}, ${markerTime}) is older than the server process (${startIso})`,
    );
  }
  if (mtime !== null && mtime < startMs - TOLERANCE_MS) {
    problems.push(
      `the file was last written ${new Date(mtime).toISOString()}, before the server process started (${startIso})`,
    );
  }
  const evidence = [markerEv, procEv];
  if (mtime !== null)
    evidence.push({
      source: 'process',
      where: `stat ${spec.path}`,
      excerpt: `mtime ${new Date(mtime).toISOString()}`,
    });
  if (problems.length > 0) {
    return finding(id, title, 'fail', {
      required: spec.required,
      expected: `log lines written by the server started ${startIso}`,
      found: `stale: ${problems.join('; ')}`,
      evidence,
      hint: 'This log belongs to an earlier server run; point expect.logs[].path at the current log.',
    });
  }
  return finding(id, title, 'pass', {
    required: spec.required,
    found: `start marker at line ${st.currentFromLine}${markerTime ? ` (${markerTime})` : ''}, process started ${startIso}`,
    evidence,
  });
}

function assertions(
  id: string,
  spec: LogExpectation,
  st: LogState,
  logical: LogLine[],
  total: number,
): Finding[] {
  const out: Finding[] = [];
  const from = st.currentFromLine;
  const end = Number.POSITIVE_INFINITY;
  const scope = `lines ${from}-${total} (the current start)`;
  const ev = (l: LogLine) => ({
    source: 'log' as const,
    where: `${spec.path}:${l.line}`,
    excerpt: excerpt(l.text),
  });
  const positive = (kind: string, label: string, i: number, test: (l: string) => boolean) => {
    const hit = firstMatch(logical, from, end, test);
    const earlier = hit === null && from > 1 ? firstMatch(logical, 1, from, test) : null;
    out.push(
      finding(`${id}.${kind}.${i}`, `Log ${kind} ${label}`, hit ? 'pass' : 'fail', {
        required: spec.required,
        expected: `${kind} ${label} in ${scope}`,
        found: hit
          ? `line ${hit.line}`
          : earlier
            ? `only at line ${earlier.line}, before the last start marker`
            : 'not found',
        evidence: hit ? [ev(hit)] : earlier ? [ev(earlier)] : [],
        hint: hit ? undefined : 'The running server did not log this; check its configuration.',
      }),
    );
  };
  for (const [i, s] of list(spec.contains).entries())
    positive('contains', JSON.stringify(s), i, (l) => l.includes(s));
  list(spec.regex).forEach((s, i) => {
    let re: RegExp | null = null;
    try {
      re = new RegExp(s);
    } catch {
      out.push(
        finding(`${id}.regex.${i}`, `Log regex /${s}/`, 'fail', {
          required: spec.required,
          found: 'the regex is invalid',
        }),
      );
      return;
    }
    const rx = re;
    positive('regex', `/${s}/`, i, (l) => rx.test(l));
  });
  list(spec.must_not_contain).forEach((s, i) => {
    const hit = firstMatch(logical, from, end, (l) => l.includes(s));
    out.push(
      finding(
        `${id}.must_not_contain.${i}`,
        `Log must not contain ${JSON.stringify(s)}`,
        hit ? 'fail' : 'pass',
        {
          required: spec.required,
          expected: `no line containing ${JSON.stringify(s)} in ${scope}`,
          found: hit ? `line ${hit.line}` : 'absent',
          evidence: hit ? [ev(hit)] : [],
        },
      ),
    );
  });
  return out;
}

/** A failed read finding for a log that is not a readable server log, quoting what it holds. */
function unreadableLog(id: string, spec: LogExpectation, found: string, text: string): Finding {
  return finding(`${id}.read`, `Log readable (${spec.path})`, 'fail', {
    required: spec.required,
    expected: `a server log at ${spec.path}`,
    found,
    evidence: [{ source: 'file', where: spec.path, excerpt: excerptOf(text) }],
    hint: 'Point expect.logs[].path at the text log the server writes.',
  });
}

export async function checkLogs(ctx: CheckContext): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const [i, spec] of ctx.plan.expect.logs.entries()) {
    const id = `log.${i}`;
    let text: string | null;
    try {
      text = await ctx.host.readFile(spec.path);
    } catch (e) {
      out.push(
        finding(`${id}.read`, `Log readable (${spec.path})`, 'fail', {
          required: spec.required,
          found: (e as Error).message,
          hint: 'Make the log readable by the user benchgate runs as.',
        }),
      );
      continue;
    }
    if (text === null) {
      out.push(
        finding(`${id}.read`, `Log readable (${spec.path})`, 'fail', {
          required: spec.required,
          expected: `a log file at ${spec.path} on ${ctx.host.description}`,
          found: 'no such file',
          hint: 'Fix expect.logs[].path, or start the server with its output redirected there.',
        }),
      );
      continue;
    }
    const sources = logSources(stripAnsi(text));
    if (sources.length === 1) out.push(...(await judgeLog(ctx, id, spec, text, spec.path)));
    // a collected log of several services (compose, kubectl --prefix) is several logs, each judged
    // alone; a service that writes no log record (a proxy's access log, a sidecar) is no server's log
    else {
      const logs = sources.filter((x) => !hasNoLogRecords(logicalLines(x.text)));
      for (const source of logs.length > 0 ? logs : sources) {
        const label = { ...spec, path: `${spec.path} [${source.name}]` };
        const k = sources.indexOf(source);
        out.push(...(await judgeLog(ctx, `${id}.${k}`, label, source.text, spec.path)));
      }
    }
  }
  return out;
}

/** The findings of one server's log text (`file` is where it was read, for its modification time). */
async function judgeLog(
  ctx: CheckContext,
  id: string,
  spec: LogExpectation,
  text: string,
  file: string,
): Promise<Finding[]> {
  const out: Finding[] = [];
  const read = readLogLines(text);
  if (read.kind !== 'value') {
    out.push(unreadableLog(id, spec, describeNoValue(read), text));
    return out;
  }
  const emptyReading: LogReading = {
    facts: {},
    startMarkerLines: [],
    startMarkerTimes: [],
    readyLine: null,
    crashes: [],
  };
  const reading = ctx.adapter ? ctx.adapter.readLog(text, spec.path) : emptyReading;
  const st: LogState = { path: spec.path, text, reading, currentFromLine: currentStartLine(reading) };
  ctx.logs.push(st);
  const lines = stripAnsi(text).split(/\r?\n/);
  const logical = read.value;
  if (reading.startMarkerLines.length === 0 && hasNoLogRecords(logical)) {
    out.push(
      unreadableLog(
        id,
        spec,
        'unreadable: no line looks like a server log record (no timestamp, level or start marker)',
        text,
      ),
    );
    return out;
  }
  out.push(await freshness(ctx, `${id}.fresh`, spec, st, lines, file));
  out.push(...startFindings(id, spec, st));
  out.push(...assertions(id, spec, st, logical, lines.length));
  const crashes = reading.crashes.filter((c) => c.line >= st.currentFromLine);
  if (crashes.length > 0) {
    out.push(
      finding(`${id}.crashes`, `No crash signatures in the current start (${spec.path})`, 'warn', {
        required: false,
        found: `${crashes.length} crash signature(s)`,
        evidence: crashes
          .slice(0, 5)
          .map((c) => ({ source: 'log', where: `${spec.path}:${c.line}`, excerpt: excerpt(c.excerpt) })),
      }),
    );
  }
  return out;
}
