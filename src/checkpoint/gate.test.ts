import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalHost } from '../hosts/local-host.js';
import { resolvePlan } from '../plan/load.js';
import { startSimulator } from '../sim/index.js';
import { checkpointGate } from './gate.js';
import { FAST_SIM } from './test-support.js';

// The gate's after-level check against real simulators: a server replaced mid-run by one with another
// configuration fails the re-check, and the run is told to end.

describe('checkpoint gate after a level', () => {
  it('ends the run when the server came back with another configuration (tp 8 replaced by tp 4 on the same port)', async () => {
    const first = await startSimulator({ ...FAST_SIM, flavor: 'sglang', engineArgs: ['--tp-size', '8'] });
    await first.ready;
    const port = Number(new URL(first.url).port);
    const dir = mkdtempSync(join(tmpdir(), 'bg-gate-'));
    const plan = resolvePlan(
      {
        target: { url: first.url, engine: 'sglang' },
        expect: { wait: '5s', config: { tp_size: 8 } },
        output: join(dir, 'results'),
      },
      'test plan',
    );
    const host = new LocalHost();
    const gate = checkpointGate({ plan, host });
    let second: Awaited<ReturnType<typeof startSimulator>> | null = null;
    try {
      expect((await gate.beforeLoad({ url: first.url })).report.ok).toBe(true);
      expect(await gate.afterLevel()).toEqual({ valid: true, reasons: [] });
      await first.close();
      second = await startSimulator({ ...FAST_SIM, flavor: 'sglang', port, engineArgs: ['--tp-size', '4'] });
      await second.ready;
      const after = await gate.afterLevel();
      expect(after.valid).toBe(false);
      expect(after.reasons.join(' ')).toMatch(/tp_size changed from 8 to 4|restarted/);
      expect(after.endRun).toMatch(/checkpoint failed again: .*config\.tp_size/);
    } finally {
      await first.close();
      await second?.close();
    }
  });
});
