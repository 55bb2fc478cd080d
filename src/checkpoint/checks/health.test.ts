import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freeLoopbackPorts } from '../../matrix/free-port.js';
import { ctxFor } from '../test-support.js';
import { checkHealth, REFUSED_GRACE_S } from './health.js';

const dir = await mkdtemp(join(tmpdir(), 'bg-health-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const servers: Server[] = [];
const timers: NodeJS.Timeout[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const t of timers.splice(0)) clearInterval(t);
});

/** A real HTTP server on `port` answering /health with 503 for the first `notReady` polls, then 200. */
async function serveHealth(port: number, notReady: number): Promise<Server> {
  let polls = 0;
  const s = createServer((req, res) => {
    polls += req.url === '/health' ? 1 : 0;
    res.writeHead(polls > notReady ? 200 : 503).end(polls > notReady ? 'ok' : 'loading');
  });
  await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
  servers.push(s);
  return s;
}

describe('waiting for health', () => {
  it('stops after a few seconds of connection refused when no log shows a model loading, naming the URL', async () => {
    const [port] = await freeLoopbackPorts(1);
    const url = `http://127.0.0.1:${port}`;
    const ctx = ctxFor({ target: { url }, expect: { wait: '10m' } });
    const [reachable] = await checkHealth(ctx);
    expect(reachable.status).toBe('fail');
    expect(reachable.found).toMatch(
      new RegExp(`^nothing is listening at ${url} \\(connection refused for \\d+s\\), and no log is given`),
    );
    expect(reachable.hint).toContain('--url (target.url in a plan');
  }, 30_000);

  it('keeps waiting past the grace while the log is moving, then passes once the server listens', async () => {
    const [port] = await freeLoopbackPorts(1);
    const url = `http://127.0.0.1:${port}`;
    const logFile = join(dir, 'loading.log');
    await writeFile(logFile, 'Loading safetensors checkpoint shards: 0%\n');
    let shard = 0;
    timers.push(setInterval(() => void appendFile(logFile, `Loading shards: ${++shard}%\n`), 200));
    // the server binds its port only after the grace period, as SGLang and vLLM do after loading
    timers.push(setTimeout(() => void serveHealth(port!, 0), (REFUSED_GRACE_S + 2) * 1000));
    const progress: string[] = [];
    const ctx = ctxFor({ target: { url }, expect: { wait: '60s', logs: [{ path: logFile }] } });
    ctx.progress = (l) => progress.push(l);
    const [reachable, healthy] = await checkHealth(ctx);
    expect(reachable.status).toBe('pass');
    expect(healthy.status).toBe('pass');
    expect(progress.some((l) => l.includes('nothing listening; the log is moving'))).toBe(true);
    expect(progress.some((l) => /\| Loading shards: \d+%/.test(l))).toBe(true);
  }, 30_000);

  it('polls with an abort signal without piling up listeners (no MaxListenersExceededWarning)', async () => {
    const [port] = await freeLoopbackPorts(1);
    await serveHealth(port!, 16); // about 4 s of 503 at one poll per 250 ms
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const ctx = ctxFor({ target: { url: `http://127.0.0.1:${port}` }, expect: { wait: '30s' } });
      ctx.signal = new AbortController().signal;
      const [, healthy] = await checkHealth(ctx);
      expect(healthy.status).toBe('pass');
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  }, 30_000);
});
