// Leftover processes: another process (outside the server's tree) listening on the target port,
// defunct (zombie) children of the server, and other inference servers still running on the host
// (running servers only: build jobs and compilers naming a server binary do not count).

import { ADAPTERS } from '../../engines/index.js';
import { processTree, readProcessTable } from '../../hosts/process-table.js';
import { type CheckContext, excerpt, finding, targetPort } from '../context.js';
import type { Finding } from '../finding.js';

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
  const otherServers = rows.filter(
    (r) => isServerCommand(r.args) && !tree.has(r.pid) && !r.stat.startsWith('Z'),
  );
  if (otherServers.length > 0) {
    if (status === 'pass') status = 'warn';
    problems.push(
      `${otherServers.length} other inference server process(es) running: PID ${otherServers.map((r) => r.pid).join(', ')}`,
    );
    for (const r of otherServers.slice(0, 5))
      evidence.push({ source: 'process', where: `/proc/${r.pid}/cmdline`, excerpt: excerpt(r.args) });
  }
  return [
    finding('leftovers', title, status, {
      required: status === 'fail',
      found:
        problems.length > 0
          ? problems.join('; ')
          : server
            ? `server tree has ${tree.size} process(es), no strays`
            : 'no other inference servers',
      evidence,
      hint:
        problems.length > 0 ? 'Stop leftover processes from earlier runs before benchmarking.' : undefined,
    }),
  ];
}
