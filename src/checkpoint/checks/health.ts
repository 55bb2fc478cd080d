// Reachable + healthy: polls GET /health until it answers 200, for up to `expect.wait`, printing
// elapsed / limit and the newest server log line while the model loads.
//
// "Nothing is listening" (connection refused) is not "still loading" by itself. The rule: after
// REFUSED_GRACE_S of refused connections, benchgate keeps waiting only while the first expect.logs file
// is changing (a model loading writes to its log); with no log given, or a log unchanged for
// LOG_QUIET_S, it stops and says nothing listens at the URL, with the log's newest line. Any HTTP
// answer (503 while loading, say) means a server is there: then it waits the whole expect.wait.

import { monoNowMs, parseDurationS, sleepMs } from '../../core/clock.js';
import { type CheckContext, excerpt, finding } from '../context.js';
import type { Evidence, Finding } from '../finding.js';

const POLL_MS = 250;
/** Refused connections tolerated before the log must show progress (a server binding its port late). */
export const REFUSED_GRACE_S = 5;
/** A log unchanged this long while nothing listens shows no model loading. */
export const LOG_QUIET_S = 60;

function newestLine(text: string | null): string {
  if (!text) return '';
  const lines = text.trimEnd().split('\n');
  return lines[lines.length - 1]?.replace(/\x1b\[[0-9;]*m/g, '').trim() ?? '';
}

function isRefused(error: { message: string } | undefined): boolean {
  return error !== undefined && /ECONNREFUSED/.test(error.message);
}

/** Watches the log the wait follows: its newest line and when its content last changed (monotonic ms). */
class LogWatch {
  newest = '';
  changedAtMs = monoNowMs();
  readable: boolean | null = null;
  private size = -1;
  constructor(
    private readonly ctx: CheckContext,
    readonly path: string | undefined,
  ) {}

  async read(): Promise<void> {
    if (!this.path) return;
    const text = await this.ctx.host.readFile(this.path).catch(() => null);
    this.readable = text !== null;
    if (text === null) return;
    const line = newestLine(text);
    if (text.length !== this.size || line !== this.newest) {
      if (this.size !== -1) this.changedAtMs = monoNowMs();
      this.size = text.length;
      this.newest = line;
    }
  }

  quietS(): number {
    return (monoNowMs() - this.changedAtMs) / 1000;
  }
}

/** Why waiting longer is pointless while nothing listens, or null while the log shows a load under way. */
function notListeningReason(url: string, refusedS: number, log: LogWatch): string | null {
  const head = `nothing is listening at ${url} (connection refused for ${refusedS.toFixed(0)}s)`;
  if (!log.path) return `${head}, and no log is given to show a model loading`;
  if (log.readable === false) return `${head}, and the log ${log.path} cannot be read`;
  if (log.quietS() >= LOG_QUIET_S)
    return `${head}, and the log ${log.path} has not changed for ${log.quietS().toFixed(0)}s`;
  return null;
}

export async function checkHealth(ctx: CheckContext): Promise<Finding[]> {
  const waitS = ctx.plan.expect.wait === undefined ? 0 : (parseDurationS(ctx.plan.expect.wait) ?? 0);
  const started = monoNowMs();
  const elapsedS = () => (monoNowMs() - started) / 1000;
  const log = new LogWatch(ctx, ctx.plan.expect.logs[0]?.path);
  await log.read();
  let lastStatus: number | null = null;
  let lastError = '';
  let lastText = '';
  let lastUrl = `${ctx.url}/health`;
  let everConnected = false;
  let lastProgressS = -1;
  let refusedSinceMs: number | null = null;
  let notListening: string | null = null;
  for (;;) {
    let doc = await ctx.http.request('/health', { timeoutMs: 5000 });
    // servers without /health (plain OpenAI-compatible ones) count as healthy when /v1/models answers
    if (doc.status === 404) doc = await ctx.http.request('/v1/models', { timeoutMs: 5000 });
    if (doc.status !== null) everConnected = true;
    lastStatus = doc.status;
    lastError = doc.error?.message ?? '';
    lastText = doc.text;
    lastUrl = doc.url;
    if (doc.status === 200) break;
    // a redirect to another origin never turns into this server's health: waiting cannot help
    if (doc.error?.code === 'BG_E_CROSS_ORIGIN_REDIRECT') break;
    if (elapsedS() >= waitS || ctx.signal?.aborted) break;
    refusedSinceMs = isRefused(doc.error) && !everConnected ? (refusedSinceMs ?? monoNowMs()) : null;
    if (Math.floor(elapsedS()) !== lastProgressS) {
      lastProgressS = Math.floor(elapsedS());
      await log.read();
      const refusedS = refusedSinceMs === null ? 0 : (monoNowMs() - refusedSinceMs) / 1000;
      if (refusedS >= REFUSED_GRACE_S) {
        notListening = notListeningReason(ctx.url, refusedS, log);
        if (notListening) break;
      }
      ctx.progress(
        `waiting for ${ctx.url}/health: ${elapsedS().toFixed(0)}s / ${waitS.toFixed(0)}s` +
          (doc.status === null
            ? refusedS >= REFUSED_GRACE_S
              ? ' (nothing listening; the log is moving, so still waiting)'
              : ' (not listening yet)'
            : ` (HTTP ${doc.status})`) +
          (log.newest ? ` | ${excerpt(log.newest, 120)}` : ''),
      );
    }
    await sleepMs(POLL_MS, ctx.signal);
  }
  const where = lastUrl;
  ctx.reachable = everConnected;
  ctx.healthy = lastStatus === 200;
  const waitNote = waitS > 0 ? ` after ${elapsedS().toFixed(1)}s (wait limit ${waitS}s)` : '';
  const out: Finding[] = [];
  const logEvidence: Evidence[] =
    log.path && log.newest ? [{ source: 'log', where: log.path, excerpt: excerpt(log.newest) }] : [];
  out.push(
    everConnected
      ? finding('reachable', 'Target is reachable', 'pass', {
          found: `HTTP answered at ${ctx.url}`,
          evidence: [{ source: 'endpoint', where, excerpt: `HTTP ${lastStatus}` }],
        })
      : finding('reachable', 'Target is reachable', 'fail', {
          expected: `an HTTP server at ${ctx.url}`,
          found: notListening
            ? `${notListening}; stopped waiting${waitNote}`
            : `${lastError || 'no answer'}${waitNote}`,
          evidence: [{ source: 'endpoint', where, excerpt: lastError }, ...logEvidence],
          hint: notListening
            ? 'Check --url (target.url in a plan: host and port) against where the server listens; give expect.logs so a long model load is followed.'
            : 'Start the server, or fix --url (target.url in a plan: host and port); use expect.wait for a long model load.',
        }),
  );
  if (!everConnected) {
    out.push(finding('healthy', 'Server reports healthy', 'skip', { found: 'target not reachable' }));
  } else if (ctx.healthy) {
    out.push(
      finding('healthy', 'Server reports healthy', 'pass', {
        found: `HTTP 200${waitNote}`,
        evidence: [{ source: 'endpoint', where, excerpt: excerpt(lastText) || 'HTTP 200' }],
      }),
    );
  } else {
    out.push(
      finding('healthy', 'Server reports healthy', 'fail', {
        expected: 'GET /health answers 200',
        found: `HTTP ${lastStatus}${waitNote}`,
        evidence: [{ source: 'endpoint', where, excerpt: excerpt(lastText) }],
        hint:
          waitS > 0
            ? 'The server did not become healthy within expect.wait; raise it or read the server log.'
            : 'Set expect.wait (e.g. "15m") to wait for the model to load.',
      }),
    );
  }
  return out;
}
