import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bootId, shardRunName } from './shard-run.js';

describe('shards on one machine', () => {
  it('read one CLOCK_MONOTONIC: a child process’s reading falls between two of the parent’s', () => {
    for (let i = 0; i < 3; i++) {
      const before = process.hrtime.bigint();
      const child = BigInt(
        execFileSync(process.execPath, [
          '-e',
          'process.stdout.write(String(process.hrtime.bigint()))',
        ]).toString(),
      );
      const after = process.hrtime.bigint();
      expect(child > before && child < after).toBe(true);
    }
  });

  it('carry one boot id (what merge uses to know the clocks are one)', () => {
    if (process.platform !== 'linux') return;
    const child = execFileSync(process.execPath, [
      '-e',
      "process.stdout.write(require('fs').readFileSync('/proc/sys/kernel/random/boot_id','utf8').trim())",
    ]).toString();
    expect(bootId()).toBe(child);
    expect(child).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('name their runs by index, once', () => {
    const shard = { index: 2, count: 3, startAtEpochMs: null };
    expect(shardRunName('bench', shard)).toBe('bench-shard-2');
    expect(shardRunName('bench-shard-2', shard)).toBe('bench-shard-2');
  });
});
