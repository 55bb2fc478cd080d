// Server process: the PID listening on the target's port on the host, its start time, command line
// and environment (from /proc, locally or over SSH), read into config facts by the engine adapter.

import type { ConfigFacts } from '../../engines/types.js';
import type { ProcessHost, ProcessInfo } from '../../hosts/host.js';
import { type CheckContext, excerpt, finding, isThisMachine, targetPort } from '../context.js';
import type { Finding } from '../finding.js';

/** Listening PIDs whose parent is not also listening: the roots of the processes sharing the socket. */
export function listenerRoots(pids: number[], ppidOf: Map<number, number>): number[] {
  const set = new Set(pids);
  return pids.filter((p) => !set.has(ppidOf.get(p) ?? -1));
}

/** Every PID listening on `port`, and the server among them: the first root of their process tree. */
export async function findListeningServer(
  host: ProcessHost,
  port: number,
): Promise<{ pids: number[]; server: ProcessInfo | null }> {
  const pids = await host.listeningPids(port);
  const infos = await Promise.all(pids.map((p) => host.processInfo(p).catch(() => null)));
  const ppidOf = new Map<number, number>();
  for (const i of infos) if (i) ppidOf.set(i.pid, i.ppid);
  const root = listenerRoots(pids, ppidOf)[0];
  return { pids, server: infos.find((i) => i?.pid === root) ?? null };
}

export async function checkServerProcess(
  ctx: CheckContext,
): Promise<{ findings: Finding[]; facts: ConfigFacts }> {
  const port = targetPort(ctx.url);
  const title = 'Server process found';
  if (ctx.host.description === 'local' && !isThisMachine(ctx.url)) {
    return {
      findings: [
        finding('process', title, 'skip', {
          required: false,
          found: `${ctx.url} is not on this machine, so its process cannot be read locally`,
          hint: 'Set host: ssh://user@host:port to read the server process, logs and GPUs where it runs.',
        }),
      ],
      facts: {},
    };
  }
  let found: { pids: number[]; server: ProcessInfo | null };
  try {
    found = await findListeningServer(ctx.host, port);
  } catch (e) {
    return {
      findings: [finding('process', title, 'warn', { required: false, found: (e as Error).message })],
      facts: {},
    };
  }
  const { pids, server } = found;
  if (pids.length === 0) {
    return {
      findings: [
        finding('process', title, 'warn', {
          required: false,
          expected: `a process on ${ctx.host.description} listening on port ${port}`,
          found: 'none visible',
          evidence: [
            { source: 'process', where: '/proc/net/tcp{,6}', excerpt: `no LISTEN socket on port ${port}` },
          ],
          hint: 'The server may run in another container or behind a port forward; set host: to where it runs.',
        }),
      ],
      facts: {},
    };
  }
  ctx.server = server;
  if (!server) {
    return {
      findings: [finding('process', title, 'warn', { required: false, found: `PID ${pids[0]} vanished` })],
      facts: {},
    };
  }
  const cmdWhere = `${ctx.host.description}:/proc/${server.pid}/cmdline`;
  // the live facts (build, /slots) decide command-line rules that hold only for some engine builds
  const facts = ctx.adapter
    ? ctx.adapter.readProcess(server.argv, server.env, `/proc/${server.pid}/cmdline`, ctx.live?.facts)
    : {};
  return {
    findings: [
      finding('process', title, 'pass', {
        found: `PID ${server.pid} started ${server.startTime ?? 'at an unknown time'}`,
        evidence: [
          { source: 'process', where: cmdWhere, excerpt: excerpt(server.argv.join(' ')) },
          {
            source: 'process',
            where: `/proc/${server.pid}/stat`,
            excerpt: `state ${server.state}, ppid ${server.ppid}`,
          },
        ],
      }),
    ],
    facts,
  };
}
