import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import { plainProgress, throttledLines } from './progress.js';

const rec = (warmup = false): RequestRecord =>
  ({ warmup, error: null, chunkTokens: [1, 1], chunkMs: [5, 6], sentMs: 1 }) as unknown as RequestRecord;

describe('progress on a piped stderr', () => {
  it('writes plain lines (no carriage returns) at level start and end, not one per record', () => {
    let out = '';
    const view = plainProgress({ write: (s: string) => (out += s) }, 3_600_000);
    view.levelStarted(0, 2, 'c=8', 100, null);
    for (let i = 0; i < 100; i++) view.record(rec());
    view.levelDone();
    const lines = out.trimEnd().split('\n');
    expect(out).not.toContain('\r');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^level 1\/2 c=8 {2}0\/100 done/);
    expect(lines[1]).toMatch(/^level 1\/2 c=8 {2}100\/100 done .* errors 0/);
  });

  it('repeats a waiting line at most once per interval but passes other lines', () => {
    const out: string[] = [];
    const note = throttledLines((l) => out.push(l), 3_600_000);
    for (let s = 1; s <= 30; s++) note(`waiting for http://x/health: ${s}s / 600s (not listening yet)`);
    note('healthy after 31 s');
    note('waiting for http://x/health: 32s / 600s');
    expect(out).toEqual([
      'waiting for http://x/health: 1s / 600s (not listening yet)',
      'healthy after 31 s',
      'waiting for http://x/health: 32s / 600s',
    ]);
  });

  it('passes different notes that share the "benchgate: " prefix', () => {
    const out: string[] = [];
    const note = throttledLines((l) => out.push(l), 3_600_000);
    note('benchgate: no GPU telemetry (energy per token unknown): nvidia-smi could not be started');
    note('benchgate: slo_search at 20 req/s: fail: not sustained');
    note('benchgate: slo_search probe at 10 req/s: 779 measured requests');
    expect(out).toHaveLength(3);
  });
});
