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

  it('passes every different note, however it begins; drops only exact repeats (issue 24 item 11)', () => {
    const out: string[] = [];
    const note = throttledLines((l) => out.push(l), 3_600_000);
    const notes = [
      'benchgate: started the embedded simulator at http://127.0.0.1:1234',
      'benchgate: slo_search probe 1/11: rate 2 req/s passes (goodput 100%)',
      'benchgate: slo_search probe 2/11: rate 4 req/s passes (goodput 100%)',
      'benchgate: observed prefix-cache hit rate 87% (expected 90%)',
      'benchgate: --force: running past failed checks',
      'benchgate: --force: running past failed checks',
      'benchgate: the highest rate meeting the SLOs is 6 req/s',
    ];
    for (const n of notes) note(n);
    expect(out).toEqual([...notes.slice(0, 5), notes[6]]);
  });

  it('throttles a waiting line whose log excerpt changes, and a matrix ready line, by the text before the counter', () => {
    const out: string[] = [];
    const note = throttledLines((l) => out.push(l), 3_600_000);
    for (let s = 1; s <= 5; s++)
      note(`waiting for http://x/health: ${s}s / 600s (HTTP 503) | loading shard ${s}/5`);
    for (let s = 1; s <= 5; s++) note(`  cfg-a: waiting for ready ${s} s / 900 s · HTTP 503 · line ${s}`);
    expect(out).toEqual([
      'waiting for http://x/health: 1s / 600s (HTTP 503) | loading shard 1/5',
      '  cfg-a: waiting for ready 1 s / 900 s · HTTP 503 · line 1',
    ]);
  });

  it('counts an SLO-search probe against max_probes: "probe 3/11", not "level 3/1"', () => {
    let out = '';
    const view = plainProgress({ write: (s: string) => (out += s) }, 3_600_000);
    view.levelStarted(2, 11, 'concurrency 8', 20, null, 'probe');
    expect(out).toMatch(/^probe 3\/11 concurrency 8 {2}0\/20 done/);
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
