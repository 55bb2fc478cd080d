// Leftover processes: another process (outside the server's tree) listening on the target port,
// defunct (zombie) children of the server, engine workers whose server is gone and processes holding
// the server's GPUs (leftover-strays.ts), and other inference servers still running on the host
// (running servers only: build jobs and compilers naming a server binary do not count).

import { ADAPTERS } from '../../engines/index.js';
import { type PsRow, processTree, readProcessTable } from '../../hosts/process-table.js';
import { type CheckContext, excerpt, finding, targetPort } from '../context.js';
import type { Finding } from '../finding.js';
import {
  describeStray,
  gpuHolders,
  gpuProcesses,
  isEngineWorker,
  isOrphaned,
  MAX_DESCRIBED,
} from './leftover-strays.js';

/**
 * Build tools, compilers and linkers: `cmake --build . --target llama-server`, `make llama-server` or
 * `c++ -o bin/llama-server` name a server without being one.
 */
const BUILD_TOOL =
  /^(cmake|ctest|g?make|ninja|meson|bazel|cargo|rustc|ccache|sccache|distcc|cc|c\+\+|gcc|g\+\+|clang|clang\+\+|cc1|cc1plus|collect2|nvcc|cicc|ptxas|ld|ld\.\w+|as|ar|ranlib)(-[\d.]+)?$/;

/** The executable's file name: the first word of a ps command line. */
function executableName(args: string): string {
  const first = args.trimStart().split(/\s+/, 1)[0] ?? '';
  return first.slice(first.lastIndexOf('/') + 1);
}

const PYTHON = /^python(\d+(\.\d+)?)?$/;

/**
 * What a command line runs, from its start: `sglang serve …`, `llama-server …`, or for a Python
 * interpreter the module after -m (`sglang.launch_server …`) or the script (`sglang.launch_server …` for
 * …/sglang/launch_server.py); null for inline code (-c).
 */
function invocation(args: string): string | null {
  const words = args.trim().split(/\s+/);
  const exe = executableName(args);
  if (!PYTHON.test(exe)) return [exe, ...words.slice(1)].join(' ');
  const m = words.indexOf('-m');
  const c = words.indexOf('-c');
  if (c > 0 && (m < 0 || c < m)) return null;
  if (m > 0) return words.slice(m + 1).join(' ');
  const script = words.slice(1).find((w) => !w.startsWith('-'));
  return script
    ? script
        .replace(/\.py$/, '')
        .replaceAll('/', '.')
        .replace(/^.*?(?=\w+\.\w+$)/, '')
    : null;
}

/**
 * A running inference server benchgate knows how to talk to (each adapter says how its command line
 * starts): the server's own process, not a build job, a compiler, an editor, a log viewer or a grep
 * whose arguments merely name one.
 */
export function isServerCommand(args: string): boolean {
  if (BUILD_TOOL.test(executableName(args))) return false;
  const run = invocation(args);
  if (run === null) return false;
  return Object.values(ADAPTERS).some((a) => a.serverCommand?.exec(run)?.index === 0);
}

interface Strays {
  /** Orphaned engine workers and processes holding the server's GPUs: each fails the check. */
  leftovers: string[];
  /** Other servers' own processes (another server may rightly run on the host): each warns. */
  otherServers: string[];
  /** How many other servers' processes run (only the first few are described). */
  otherCount: number;
  evidence: Finding['evidence'];
  /** Why GPU holders were not judged, or null. */
  gpuGap: string | null;
}

/**
 * The engine processes outside the server's tree: workers whose server is gone and processes holding
 * the server's GPUs (leftovers), and other servers' processes; each with PID, state, parent and age.
 */
async function engineStrays(
  ctx: CheckContext,
  rows: PsRow[],
  tree: ReadonlySet<number> | null,
): Promise<Strays> {
  const apps = await gpuProcesses(ctx);
  const holders = typeof apps === 'string' ? apps : gpuHolders(apps, rows, tree);
  const outside = rows.filter((r) => !tree?.has(r.pid));
  const why = (r: PsRow): string | null => {
    const gpus = typeof holders === 'string' ? undefined : holders.get(r.pid);
    if (gpus) return `holds ${gpus.join(', ')}`;
    if (isEngineWorker(r.args) && isOrphaned(rows, r, isServerCommand))
      return 'an engine worker whose server is gone';
    return null;
  };
  const leftovers = outside.flatMap((r) => {
    const w = why(r);
    return w ? [{ r, w }] : [];
  });
  const servers = outside.filter(
    (r) => isServerCommand(r.args) && !r.stat.startsWith('Z') && !leftovers.some((l) => l.r === r),
  );
  const shown = [...leftovers.map((l) => l.r), ...servers].slice(0, MAX_DESCRIBED);
  return {
    leftovers: [
      ...(await Promise.all(leftovers.slice(0, MAX_DESCRIBED).map((l) => describeStray(ctx, l.r, l.w)))),
      ...(leftovers.length > MAX_DESCRIBED ? [`and ${leftovers.length - MAX_DESCRIBED} more`] : []),
    ],
    otherServers: await Promise.all(servers.slice(0, MAX_DESCRIBED).map((r) => describeStray(ctx, r, ''))),
    otherCount: servers.length,
    evidence: shown.map((r) => ({
      source: 'process',
      where: `/proc/${r.pid}/cmdline`,
      excerpt: excerpt(r.args),
    })),
    gpuGap: typeof holders === 'string' ? holders : null,
  };
}

export async function checkLeftovers(ctx: CheckContext): Promise<Finding[]> {
  const title = 'No leftover processes';
  const rows = await readProcessTable(ctx.host).catch(() => null);
  if (!rows)
    return [
      finding('leftovers', title, 'skip', {
        required: false,
        found: 'the process table could not be read (ps)',
      }),
    ];
  const server = ctx.server;
  const tree = server ? processTree(rows, server.pid) : new Set<number>();
  const problems: string[] = [];
  const evidence: Finding['evidence'] = [];
  let status: 'pass' | 'warn' | 'fail' = 'pass';
  const port = targetPort(ctx.url);
  const listeners = await ctx.host.listeningPids(port).catch(() => [] as number[]);
  const strangers = listeners.filter((p) => !tree.has(p));
  if (server && strangers.length > 0) {
    status = 'fail';
    problems.push(
      `PID ${strangers.join(', ')} also listen on port ${port} outside the server's process tree`,
    );
    for (const p of strangers) {
      const row = rows.find((r) => r.pid === p);
      evidence.push({ source: 'process', where: `/proc/${p}`, excerpt: excerpt(row?.args ?? '') });
    }
  }
  const zombies = rows.filter((r) => r.stat.startsWith('Z') && (tree.has(r.ppid) || tree.has(r.pid)));
  if (zombies.length > 0) {
    if (status === 'pass') status = 'warn';
    problems.push(
      `${zombies.length} defunct child process(es) of the server: ${zombies.map((z) => z.pid).join(', ')}`,
    );
    for (const z of zombies.slice(0, 5))
      evidence.push({ source: 'process', where: `/proc/${z.pid}/stat`, excerpt: `${z.stat} ${z.args}` });
  }
  const strays = await engineStrays(ctx, rows, server ? tree : null);
  if (strays.leftovers.length > 0) {
    status = 'fail';
    problems.push(
      `leftover engine or GPU process(es) outside the server's tree: ${strays.leftovers.join('; ')}`,
    );
  }
  if (strays.otherServers.length > 0) {
    if (status === 'pass') status = 'warn';
    problems.push(
      `${strays.otherCount} other inference server process(es) running: ${strays.otherServers.join('; ')}`,
    );
  }
  evidence.push(...strays.evidence);
  return [
    finding('leftovers', title, status, {
      required: status === 'fail',
      found: `${
        problems.length > 0
          ? problems.join('; ')
          : server
            ? `server tree has ${tree.size} process(es), no strays`
            : 'no other inference servers'
      }${strays.gpuGap ? ` (GPU holders not checked: ${strays.gpuGap})` : ''}`,
      evidence,
      hint:
        problems.length > 0 ? 'Stop leftover processes from earlier runs before benchmarking.' : undefined,
    }),
  ];
}
