// The host's process table from `ps -eo pid=,ppid=,stat=,args=` (works locally and over SSH), and the
// server's process tree, used to tell the server's own workers from leftovers and foreign processes.

import type { Host } from '../hosts/host.js';

export interface PsRow {
  pid: number;
  ppid: number;
  stat: string;
  args: string;
}

export function parsePs(text: string): PsRow[] {
  const rows: PsRow[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s?(.*)$/.exec(line);
    if (m) rows.push({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3], args: m[4] });
  }
  return rows;
}

export async function readProcessTable(host: Host): Promise<PsRow[] | null> {
  const r = await host.exec(['ps', '-eo', 'pid=,ppid=,stat=,args='], { timeoutMs: 15_000 }).catch(() => null);
  return r && r.code === 0 ? parsePs(r.stdout) : null;
}

/** The root PID and all its descendants. */
export function processTree(rows: PsRow[], root: number): Set<number> {
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
