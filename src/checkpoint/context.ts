// What every check reads and what earlier checks learned (engine, live config, server process, logs),
// passed along by the runner so each check stays a small function returning findings.

import { hostname, networkInterfaces } from 'node:os';
import type {
  ConfigFacts,
  EngineAdapter,
  EngineName,
  LiveReading,
  LogReading,
  TargetHttp,
} from '../engines/types.js';
import type { ProcessHost, ProcessInfo } from '../hosts/host.js';
import type { Plan } from '../plan/schema.js';
import type { Evidence, Finding, FindingStatus } from './finding.js';

export interface LogState {
  path: string;
  text: string;
  reading: LogReading;
  /** 1-based first line of the current server start (1 when no start marker was found). */
  currentFromLine: number;
}

export interface CheckContext {
  plan: Plan;
  host: ProcessHost;
  http: TargetHttp;
  url: string;
  /** Headers for generation requests (Authorization etc.); never written into findings. */
  headers: Record<string, string>;
  signal?: AbortSignal;
  progress: (line: string) => void;
  reachable: boolean;
  healthy: boolean;
  engine: EngineName | null;
  adapter: EngineAdapter | null;
  model: string | null;
  live: LiveReading | null;
  server: ProcessInfo | null;
  logs: LogState[];
  /**
   * Facts proven by the checkpoint's own requests (`speculative.active` when the smoke request accepted
   * drafts): live evidence that outranks a rule inferred from the command line.
   */
  evidence: ConfigFacts;
}

/** What a context knows before any check ran: the given target and host, nothing learnt yet. */
export type CheckContextInput = Pick<CheckContext, 'plan' | 'host' | 'http' | 'url' | 'headers' | 'signal'> &
  Partial<Pick<CheckContext, 'progress'>>;

/** A fresh context: every fact the checks fill in (reachable, engine, server, logs, …) starts unknown. */
export function newCheckContext(input: CheckContextInput): CheckContext {
  return {
    ...input,
    progress: input.progress ?? (() => {}),
    reachable: false,
    healthy: false,
    engine: null,
    adapter: null,
    model: null,
    live: null,
    server: null,
    logs: [],
    evidence: {},
  };
}

export function finding(
  id: string,
  title: string,
  status: FindingStatus,
  opts: { required?: boolean; expected?: string; found?: string; evidence?: Evidence[]; hint?: string } = {},
): Finding {
  const f: Finding = { id, title, status, required: opts.required ?? true, evidence: opts.evidence ?? [] };
  if (opts.expected !== undefined) f.expected = opts.expected;
  if (opts.found !== undefined) f.found = opts.found;
  if (opts.hint !== undefined) f.hint = opts.hint;
  return f;
}

/** Trims an excerpt to a few hundred characters for evidence. */
export function excerpt(text: string, max = 300): string {
  const t = text.trim();
  return t.length <= max ? t : `${t.slice(0, max)}…`;
}

/** Port of the target URL (explicit, or the scheme default). */
export function targetPort(url: string): number {
  const u = new URL(url);
  return u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
}

/** The URL without user info, query or fragment, safe for evidence, logs and manifests. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/+$/, '');
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//');
  }
}

/** True when the URL's host is this machine (loopback, wildcard, the host name or a local interface address). */
export function isThisMachine(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return false;
  }
  if (
    host === 'localhost' ||
    host === '0.0.0.0' ||
    host === '::' ||
    host === '::1' ||
    host.startsWith('127.')
  )
    return true;
  if (host === hostname()) return true;
  return Object.values(networkInterfaces()).some((list) => (list ?? []).some((i) => i.address === host));
}
