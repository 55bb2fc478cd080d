// Resolves one matrix config into what the runner needs: the launch argv/env/host, the URL and port
// it serves, the per-config plan (the config's own `expect` merged over the plan's), and its launch fingerprint.

import { createHash } from 'node:crypto';
import { targetPort } from '../checkpoint/context.js';
import { canonicalJson } from '../checkpoint/verified-target.js';
import { parseDurationS } from '../core/clock.js';
import { BenchgateError } from '../core/errors.js';
import type { ConfigSpec, Plan } from '../plan/schema.js';
import { matrixLossless } from './lossless-default.js';

export interface ResolvedConfig {
  name: string;
  /** argv[0] is the executable; no shell. */
  argv: string[];
  env: Record<string, string>;
  cwd: string | undefined;
  /** `local` or `ssh://user@host:port`. */
  hostSpec: string;
  url: string;
  port: number;
  stop: { signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL'; command: string | undefined; graceS: number };
  readyTimeoutS: number;
  /** The plan this config's checkpoint and sweep run with. */
  plan: Plan;
  /** sha256 over the launch spec (argv, env, cwd, host, url, stop): changes when the user changes how it starts. */
  launchFingerprint: string;
}

/** Merges a config's own `expect` over the plan's: keys of `config` override, logs add up. */
export function mergeExpect(planExpect: Plan['expect'], own: ConfigSpec['expect']): Plan['expect'] {
  if (!own) return planExpect;
  return {
    config: { ...planExpect.config, ...(own.config ?? {}) },
    logs: [...planExpect.logs, ...(own.logs ?? [])],
    wait: own.wait ?? planExpect.wait,
    smoke: own.smoke ?? planExpect.smoke,
  };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function resolveConfig(plan: Plan, config: ConfigSpec, where: string): ResolvedConfig {
  const url = config.url ?? plan.target.url;
  if (!url) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `config "${config.name}" in ${where} needs a url (or the plan needs target.url) so benchgate knows where the server listens.`,
    );
  }
  if (!config.launch) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `config "${config.name}" in ${where} has no launch: benchgate run needs a command to start each config's server.`,
    );
  }
  const command =
    typeof config.launch.command === 'string'
      ? config.launch.command.trim().split(/\s+/)
      : config.launch.command;
  const argv = [...command, ...config.launch.args];
  const env = { ...config.launch.env };
  // The plan's host is every config's default: launching, logs, processes and GPUs are all read there.
  const hostSpec = config.launch.host ?? plan.host;
  const graceS = parseDurationS(config.stop.grace) ?? 30;
  const readyTimeoutS = parseDurationS(config.ready_timeout) ?? 900;
  const stop = { signal: config.stop.signal, command: config.stop.command, graceS };
  const configPlan: Plan = {
    ...plan,
    name: `${plan.name ?? 'matrix'}/${config.name}`,
    // so anything opening a host from this plan (checkpoint, drift check) reads the config's machine
    host: hostSpec,
    target: { ...plan.target, url },
    expect: mergeExpect(plan.expect, config.expect),
    // the matrix's lossless check (its default included) reaches each config's collection of answers
    lossless: matrixLossless(plan)?.spec ?? plan.lossless,
    configs: undefined,
  };
  const launchFingerprint = sha256Hex(
    canonicalJson({
      argv,
      env,
      cwd: config.launch.cwd,
      host: hostSpec,
      url,
      stop: { signal: stop.signal, command: stop.command },
    }),
  );
  return {
    name: config.name,
    argv,
    env,
    cwd: config.launch.cwd,
    hostSpec,
    url,
    port: targetPort(url),
    stop,
    readyTimeoutS,
    plan: configPlan,
    launchFingerprint,
  };
}

/** Names used by more than one config (the plan loader also checks this; the runner must not trust it). */
export function duplicateConfigNames(configs: readonly ConfigSpec[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const c of configs) {
    if (seen.has(c.name)) dup.add(c.name);
    seen.add(c.name);
  }
  return [...dup];
}
