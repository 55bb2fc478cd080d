import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LocalHost } from './local-host.js';
import { parsePsTable, processTree, readProcessTable } from './process-table.js';

describe('parsePsTable', () => {
  it('reads pid, parent, group, state and the full command line, skipping other lines', () => {
    const rows = parsePsTable(
      '  10     1    10 Ssl  python -m sglang.launch_server --tp 8\n 11 10 10 Z [python] <defunct>\nnoise\n',
    );
    expect(rows).toEqual([
      { pid: 10, ppid: 1, pgid: 10, stat: 'Ssl', args: 'python -m sglang.launch_server --tp 8' },
      { pid: 11, ppid: 10, pgid: 10, stat: 'Z', args: '[python] <defunct>' },
    ]);
  });
});

describe('processTree', () => {
  it('holds the root and every descendant but not siblings', () => {
    const rows = parsePsTable(
      '1 0 1 S init\n10 1 10 S server\n11 10 10 S worker\n12 11 10 S grandchild\n20 1 20 S other\n',
    );
    expect([...processTree(rows, 10)].sort((a, b) => a - b)).toEqual([10, 11, 12]);
  });
});

describe('readProcessTable', () => {
  it('finds a real child process with its parent and its own process group', async () => {
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    try {
      const rows = await readProcessTable(new LocalHost());
      const row = rows?.find((r) => r.pid === child.pid);
      expect(row).toMatchObject({ ppid: process.pid, pgid: child.pid, args: 'sleep 30' });
      expect(processTree(rows ?? [], process.pid).has(child.pid as number)).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
