// Which machine the host-reading checks read. With host "local" and a target URL that is not this
// machine, logs, processes, ports and GPUs read here say nothing about the server: those checks are not
// run, and the plan is told so. Asked-for expectations (logs, gpus) then fail, because they cannot be judged.

import { type CheckContext, finding, isThisMachine } from '../context.js';
import type { Finding } from '../finding.js';

/** True when host-reading checks would read another machine than the one serving `ctx.url`. */
export function readsAnotherMachine(ctx: Pick<CheckContext, 'host' | 'url'>): boolean {
  return ctx.host.description === 'local' && !isThisMachine(ctx.url);
}

/** The one finding that replaces the logs, leftovers and GPU checks when they would read the wrong machine. */
export function hostMismatchFinding(ctx: Pick<CheckContext, 'host' | 'url' | 'plan'>): Finding {
  const asked = [
    ...(ctx.plan.expect.logs.length > 0 ? ['expect.logs'] : []),
    ...(ctx.plan.gpus ? ['gpus'] : []),
  ];
  const required = asked.length > 0;
  return finding('host', 'Checks read the machine the server runs on', required ? 'fail' : 'warn', {
    required,
    expected: `host: set to the machine serving ${ctx.url}`,
    found:
      `${ctx.url} is not on this machine but host is "local": its logs, processes, port and GPUs were not read` +
      (required ? `, so ${asked.join(' and ')} cannot be judged` : ''),
    hint: 'Set host: ssh://user@host:port (plan or config launch.host) so checks read where the server runs.',
  });
}
