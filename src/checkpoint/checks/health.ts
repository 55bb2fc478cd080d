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

/** What the wait for health saw last. */
interface HealthPoll {
  status: number | null;
  error: string;
  text: string;
  url: string;
  everConnected: boolean;
  /** Why the wait stopped early because nothing listens, or null. */
  notListening: string | null;
  elapsedS: number;
  waitS: number;
  log: LogWatch;
}

/** The waiting line: elapsed / limit, what the server answered, and the log's newest line. */
function waitingLine(
  ctx: CheckContext,
  elapsedS: number,
  waitS: number,
  status: number | null,
  refusedS: number,
  log: LogWatch,
): string {
  const state =
    status === null
      ? refusedS >= REFUSED_GRACE_S
        ? ' (nothing listening; the log is moving, so still waiting)'
        : ' (not listening yet)'
      : ` (HTTP ${status})`;
  return (
    `waiting for ${ctx.url}/health: ${elapsedS.toFixed(0)}s / ${waitS.toFixed(0)}s${state}` +
    (log.newest ? ` | ${excerpt(log.newest, 120)}` : '')
  );
}

/** Polls /health (or /v1/models where there is none) until 200, the wait limit, or nothing listening. */
async function pollHealth(ctx: CheckContext): Promise<HealthPoll> {
  const waitS = ctx.plan.expect.wait === undefined ? 0 : (parseDurationS(ctx.plan.expect.wait) ?? 0);
  const started = monoNowMs();
  const elapsedS = () => (monoNowMs() - started) / 1000;
  const log = new LogWatch(ctx, ctx.plan.expect.logs[0]?.path);
  await log.read();
  const p: HealthPoll = {
    status: null,
    error: '',
    text: '',
    url: `${ctx.url}/health`,
    everConnected: false,
    notListening: null,
    elapsedS: 0,
    waitS,
    log,
  };
  let lastProgressS = -1;
  let refusedSinceMs: number | null = null;
  for (;;) {
    let doc = await ctx.http.request('/health', { timeoutMs: 5000 });
    // servers without /health (plain OpenAI-compatible ones) count as healthy when /v1/models answers
    if (doc.status === 404) doc = await ctx.http.request('/v1/models', { timeoutMs: 5000 });
    if (doc.status !== null) p.everConnected = true;
    Object.assign(p, { status: doc.status, error: doc.error?.message ?? '', text: doc.text, url: doc.url });
    if (doc.status === 200) break;
    // a redirect to another origin never turns into this server's health: waiting cannot help
    if (doc.error?.code === 'BG_E_CROSS_ORIGIN_REDIRECT') break;
    if (elapsedS() >= waitS || ctx.signal?.aborted) break;
    refusedSinceMs = isRefused(doc.error) && !p.everConnected ? (refusedSinceMs ?? monoNowMs()) : null;
    if (Math.floor(elapsedS()) !== lastProgressS) {
      lastProgressS = Math.floor(elapsedS());
      await log.read();
      const refusedS = refusedSinceMs === null ? 0 : (monoNowMs() - refusedSinceMs) / 1000;
      if (refusedS >= REFUSED_GRACE_S) {
        p.notListening = notListeningReason(ctx.url, refusedS, log);
        if (p.notListening) break;
      }
      ctx.progress(waitingLine(ctx, elapsedS(), waitS, doc.status, refusedS, log));
    }
    await sleepMs(POLL_MS, ctx.signal);
  }
  p.elapsedS = elapsedS();
  return p;
}

function reachableFinding(ctx: CheckContext, p: HealthPoll, waitNote: string): Finding {
  if (p.everConnected)
    return finding('reachable', 'Target is reachable', 'pass', {
      found: `HTTP answered at ${ctx.url}`,
      evidence: [{ source: 'endpoint', where: p.url, excerpt: `HTTP ${p.status}` }],
    });
  const logEvidence: Evidence[] =
    p.log.path && p.log.newest ? [{ source: 'log', where: p.log.path, excerpt: excerpt(p.log.newest) }] : [];
  return finding('reachable', 'Target is reachable', 'fail', {
    expected: `an HTTP server at ${ctx.url}`,
    found: p.notListening
      ? `${p.notListening}; stopped waiting${waitNote}`
      : `${p.error || 'no answer'}${waitNote}`,
    evidence: [{ source: 'endpoint', where: p.url, excerpt: p.error }, ...logEvidence],
    hint: p.notListening
      ? 'Check --url (target.url in a plan: host and port) against where the server listens; give expect.logs so a long model load is followed.'
      : 'Start the server, or fix --url (target.url in a plan: host and port); use expect.wait for a long model load.',
  });
}

function healthyFinding(p: HealthPoll, waitNote: string): Finding {
  if (!p.everConnected)
    return finding('healthy', 'Server reports healthy', 'skip', { found: 'target not reachable' });
  if (p.status === 200)
    return finding('healthy', 'Server reports healthy', 'pass', {
      found: `HTTP 200${waitNote}`,
      evidence: [{ source: 'endpoint', where: p.url, excerpt: excerpt(p.text) || 'HTTP 200' }],
    });
  return finding('healthy', 'Server reports healthy', 'fail', {
    expected: 'GET /health answers 200',
    found: `HTTP ${p.status}${waitNote}`,
    evidence: [{ source: 'endpoint', where: p.url, excerpt: excerpt(p.text) }],
    hint:
      p.waitS > 0
        ? 'The server did not become healthy within expect.wait; raise it or read the server log.'
        : 'Set expect.wait (e.g. "15m") to wait for the model to load.',
  });
}

export async function checkHealth(ctx: CheckContext): Promise<Finding[]> {
  const p = await pollHealth(ctx);
  ctx.reachable = p.everConnected;
  ctx.healthy = p.status === 200;
  const waitNote = p.waitS > 0 ? ` after ${p.elapsedS.toFixed(1)}s (wait limit ${p.waitS}s)` : '';
  return [reachableFinding(ctx, p, waitNote), healthyFinding(p, waitNote)];
}
