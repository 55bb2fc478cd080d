// The host's process table from one `ps` call (works locally and over SSH): parent and process group
// of every process, so checks can walk a server's process tree and teardown can find its group.

import type { Host } from './host.js';

export interface PsRow {
  pid: number;
  ppid: number;
  pgid: number;
  /** ps STAT, e.g. "S", "Sl", "Z" (zombie). */
  stat: string;
  args: string;
}

const PS_ARGV = ['ps', '-eo', 'pid=,ppid=,pgid=,stat=,args='];

/** Parses the output of `ps -eo pid=,ppid=,pgid=,stat=,args=`; lines of any other shape are skipped. */
export function parsePsTable(text: string): PsRow[] {
  const rows: PsRow[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s*(.*)$/.exec(line);
    if (m) rows.push({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), stat: m[4], args: m[5] });
  }
  return rows;
}

/** Every process on the host; null when `ps` exits non-zero. A host that cannot run commands rejects. */
export async function readProcessTable(host: Host, timeoutMs = 15_000): Promise<PsRow[] | null> {
  const r = await host.exec(PS_ARGV, { timeoutMs });
  return r.code === 0 ? parsePsTable(r.stdout) : null;
}

/** The root PID and all its descendants. */
export function processTree(rows: readonly PsRow[], root: number): Set<number> {
  const children = new Map<number, number[]>();
  for (const r of rows) children.set(r.ppid, [...(children.get(r.ppid) ?? []), r.pid]);
  const tree = new Set<number>([root]);
  const queue = [root];
  while (queue.length > 0) {
    const p = queue.pop() as number;
    for (const c of children.get(p) ?? []) {
      if (!tree.has(c)) {
        tree.add(c);
        queue.push(c);
      }
    }
  }
  return tree;
}
