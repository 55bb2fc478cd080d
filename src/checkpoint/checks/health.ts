// Reachable + healthy: polls GET /health until it answers 200, for up to `expect.wait`, printing
// elapsed / limit and the newest server log line while the model loads.

import { parseDurationS } from '../../core/clock.js';
import { type CheckContext, excerpt, finding } from '../context.js';
import type { Finding } from '../finding.js';

const POLL_MS = 250;

function newestLine(text: string | null): string {
  if (!text) return '';
  const lines = text.trimEnd().split('\n');
  return lines[lines.length - 1]?.replace(/\x1b\[[0-9;]*m/g, '').trim() ?? '';
}

async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  await new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

export async function checkHealth(ctx: CheckContext): Promise<Finding[]> {
  const waitS = ctx.plan.expect.wait === undefined ? 0 : (parseDurationS(ctx.plan.expect.wait) ?? 0);
  const started = Date.now();
  const logPath = ctx.plan.expect.logs[0]?.path;
  let lastStatus: number | null = null;
  let lastError = '';
  let lastText = '';
  let lastUrl = `${ctx.url}/health`;
  let everConnected = false;
  let lastProgress = 0;
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
    const elapsedS = (Date.now() - started) / 1000;
    if (elapsedS >= waitS || ctx.signal?.aborted) break;
    if (Date.now() - lastProgress >= 1000) {
      lastProgress = Date.now();
      const log = logPath ? await ctx.host.readFile(logPath).catch(() => null) : null;
      const tail = newestLine(log);
      ctx.progress(
        `waiting for ${ctx.url}/health: ${elapsedS.toFixed(0)}s / ${waitS.toFixed(0)}s` +
          (doc.status === null ? ' (not listening yet)' : ` (HTTP ${doc.status})`) +
          (tail ? ` | ${excerpt(tail, 120)}` : ''),
      );
    }
    await sleep(POLL_MS, ctx.signal);
  }
  const elapsedS = ((Date.now() - started) / 1000).toFixed(1);
  const where = lastUrl;
  ctx.reachable = everConnected;
  ctx.healthy = lastStatus === 200;
  const waitNote = waitS > 0 ? ` after ${elapsedS}s (wait limit ${waitS}s)` : '';
  const out: Finding[] = [];
  out.push(
    everConnected
      ? finding('reachable', 'Target is reachable', 'pass', {
          found: `HTTP answered at ${ctx.url}`,
          evidence: [{ source: 'endpoint', where, excerpt: `HTTP ${lastStatus}` }],
        })
      : finding('reachable', 'Target is reachable', 'fail', {
          expected: `an HTTP server at ${ctx.url}`,
          found: `${lastError || 'no answer'}${waitNote}`,
          evidence: [{ source: 'endpoint', where, excerpt: lastError }],
          hint: 'Start the server, or fix target.url (host and port); use expect.wait for a long model load.',
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
