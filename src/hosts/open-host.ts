// Turns a plan's `host:` value ('local' or ssh://user@host:port) into a ProcessHost.

import { BenchgateError } from '../core/errors.js';
import type { ProcessHost } from './host.js';
import { LocalHost } from './local-host.js';
import { SshHost, type SshHostOptions, type SshTarget } from './ssh-host.js';

export function parseHostSpec(spec: string): { kind: 'local' } | { kind: 'ssh'; target: SshTarget } {
  if (spec === 'local' || spec === '') return { kind: 'local' };
  const m = /^ssh:\/\/(?:([^@/\s:]+)@)?([^:/\s@]+)(?::(\d+))?\/?$/.exec(spec);
  if (!m || m[2].startsWith('-') || (m[1] ?? '').startsWith('-')) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `Expected host "local" or ssh://user@host:port; found "${spec}".`,
    );
  }
  const port = m[3] === undefined ? undefined : Number(m[3]);
  if (port !== undefined && (port < 1 || port > 65535)) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `Expected an SSH port between 1 and 65535; found ${port} in "${spec}".`,
    );
  }
  return { kind: 'ssh', target: { user: m[1], hostname: m[2], port } };
}

export async function openHost(spec: string, sshOptions: SshHostOptions = {}): Promise<ProcessHost> {
  const parsed = parseHostSpec(spec);
  return parsed.kind === 'local' ? new LocalHost() : new SshHost(parsed.target, sshOptions);
}
