import { describe, expect, it } from 'vitest';
import { freeLoopbackPorts } from './free-port.js';
import { LogTail } from './log-tail.js';
import { waitForReady } from './wait-ready.js';

describe('waitForReady on a wrong port', () => {
  it('stops after the grace when the server is alive, nothing listens and its output is quiet', async () => {
    const [port] = await freeLoopbackPorts(1);
    const log = new LogTail();
    log.push('server: listening on another port');
    const outcome = await waitForReady({
      url: `http://127.0.0.1:${port}`,
      timeoutS: 600,
      exited: new Promise(() => {}), // alive throughout
      log,
      quietS: 1,
    });
    expect(outcome.kind).toBe('not-listening');
    if (outcome.kind !== 'not-listening') return;
    expect(outcome.refusedS).toBeGreaterThanOrEqual(5);
    expect(outcome.elapsedS).toBeLessThan(600);
  });

  it('keeps waiting while the output moves (a model loading), up to ready_timeout', async () => {
    const [port] = await freeLoopbackPorts(1);
    const log = new LogTail();
    const ticker = setInterval(() => log.push(`loading shard ${Date.now()}`), 100);
    try {
      const outcome = await waitForReady({
        url: `http://127.0.0.1:${port}`,
        timeoutS: 7,
        exited: new Promise(() => {}),
        log,
        quietS: 1,
      });
      expect(outcome.kind).toBe('timeout');
    } finally {
      clearInterval(ticker);
    }
  });
});
