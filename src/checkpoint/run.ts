// The checkpoint runner: runs the built-in checks in dependency order (health → engine/model → server
// process → logs → config → leftovers → smoke; tools, GPUs and the results directory independently),
// collects their findings and builds the verified target for the run's manifest.

import { createTargetHttp } from '../client/target-http.js';
import { redactDeep } from '../core/redact.js';
import type { ConfigFacts, VerifiedTarget } from '../engines/types.js';
import type { ProcessHost } from '../hosts/host.js';
import { openHost } from '../hosts/open-host.js';
import type { Plan } from '../plan/schema.js';
import { checkConfig, type FactLayers, mergeLayers } from './checks/config.js';
import { checkEngine } from './checks/engine.js';
import { checkGpus } from './checks/gpus.js';
import { checkHealth } from './checks/health.js';
import { hostMismatchFinding, readsAnotherMachine } from './checks/host-match.js';
import { checkLeftovers } from './checks/leftovers.js';
import { checkLogs } from './checks/logs.js';
import { checkResultsDir } from './checks/results-dir.js';
import { checkServerProcess } from './checks/server-process.js';
import { checkSmoke } from './checks/smoke-check.js';
import { checkTools } from './checks/tools.js';
import { type CheckContext, displayUrl, finding, newCheckContext } from './context.js';
import { type CheckpointReport, type Finding, gateFailed } from './finding.js';
import { losslessFindings } from './lossless-reference.js';
import { buildVerifiedTarget, METRICS_START_KEY, readMetricsStartTimeS } from './verified-target.js';

export const DEFAULT_TARGET_URL = 'http://127.0.0.1:30000';

export interface RunCheckpointOptions {
  plan: Plan;
  /** Host where the server runs; default: opened from plan.host (and closed afterwards). */
  host?: ProcessHost;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
  /** Write the server's greedy answers to this lossless reference file (after the other checks). */
  recordReference?: string;
}

/** Request headers for the target: plan headers plus the Bearer key from api_key_env (never logged). */
export function targetHeaders(plan: Plan): Record<string, string> {
  const headers = { ...plan.target.headers };
  const key = plan.target.api_key_env ? process.env[plan.target.api_key_env] : undefined;
  if (key) headers.Authorization = `Bearer ${key}`;
  return headers;
}

/** Runs one check; an unexpected error becomes a failed finding naming the check, never a crash. */
async function guarded<T>(
  id: string,
  title: string,
  fn: () => Promise<T>,
  fallback: T,
  out: Finding[],
): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    out.push(finding(id, title, 'fail', { found: `the check could not run: ${(e as Error).message}` }));
    return fallback;
  }
}

/**
 * The checks of a target that answers: engine and live config, server process, logs, leftovers, the
 * smoke request, then config (judged after the smoke, whose accepted drafts are live evidence, but listed
 * before leftovers as always) and lossless. Returns the merged configuration facts.
 */
async function checkServedTarget(
  ctx: CheckContext,
  out: Finding[],
  elsewhere: boolean,
  recordReference: string | undefined,
): Promise<ConfigFacts> {
  out.push(...(await guarded('engine', 'Engine identified', () => checkEngine(ctx), [], out)));
  const proc = await guarded(
    'process',
    'Server process found',
    () => checkServerProcess(ctx),
    { findings: [], facts: {} },
    out,
  );
  out.push(...proc.findings);
  if (!elsewhere) out.push(...(await guarded('logs', 'Logs', () => checkLogs(ctx), [], out)));
  const layers: FactLayers = {
    evidence: ctx.evidence,
    live: ctx.live?.facts ?? {},
    process: proc.facts,
    logs: ctx.logs.map((l) => l.reading.facts),
  };
  const configAt = out.length;
  const before = mergeLayers(layers);
  if (!elsewhere)
    out.push(...(await guarded('leftovers', 'No leftover processes', () => checkLeftovers(ctx), [], out)));
  if (ctx.plan.expect.smoke && ctx.healthy)
    out.push(...(await guarded('smoke', 'Smoke generation', () => checkSmoke(ctx, before), [], out)));
  else if (ctx.plan.expect.smoke)
    out.push(finding('smoke', 'Smoke generation', 'skip', { found: 'the server is not healthy' }));
  out.splice(configAt, 0, ...checkConfig(ctx, layers));
  out.push(...(await losslessFindings(ctx, recordReference)));
  return mergeLayers(layers);
}

/** The verified target stored with the run: the merged facts, the raw documents (secrets removed), the start time. */
async function verifiedTargetOf(
  ctx: CheckContext,
  facts: ConfigFacts,
  topology: unknown,
): Promise<VerifiedTarget> {
  const raw = redactDeep({ ...(ctx.live?.raw ?? {}) }) as Record<string, unknown>;
  if (ctx.server)
    raw[`/proc/${ctx.server.pid}`] = {
      argv: ctx.server.argv,
      env: ctx.server.env,
      startTime: ctx.server.startTime,
    };
  if (topology) raw['nvidia-smi topo -m'] = topology;
  const metricsStartS = await readMetricsStartTimeS(ctx.http).catch(() => null);
  if (metricsStartS !== null) raw[METRICS_START_KEY] = metricsStartS;
  const engineVersion = facts.engine_version?.value;
  return buildVerifiedTarget({
    url: ctx.url,
    engine: ctx.engine ?? 'openai',
    engineVersion: engineVersion === undefined || engineVersion === null ? null : String(engineVersion),
    model: ctx.model,
    config: facts,
    raw,
    processStartTime:
      ctx.server?.startTime ?? (metricsStartS === null ? null : new Date(metricsStartS * 1000).toISOString()),
  });
}

export async function runCheckpoint(
  opts: RunCheckpointOptions,
): Promise<{ report: CheckpointReport; verifiedTarget: VerifiedTarget | null }> {
  const { plan } = opts;
  const fullUrl = (plan.target.url ?? DEFAULT_TARGET_URL).replace(/\/+$/, '');
  // evidence, progress and the manifest only ever see the URL without credentials
  const url = displayUrl(fullUrl);
  const headers = targetHeaders(plan);
  const host = opts.host ?? (await openHost(plan.host));
  const ctx = newCheckContext({
    plan,
    host,
    http: createTargetHttp(url, { headers, timeoutMs: plan.target.timeouts.connect_s * 1000 }),
    url,
    headers,
    signal: opts.signal,
    progress: opts.onProgress,
  });
  const out: Finding[] = [];
  let facts: ConfigFacts = {};
  let topology: unknown = null;
  // host "local" with a remote URL: checks that read the host would read the wrong machine
  const elsewhere = readsAnotherMachine(ctx);
  if (elsewhere) out.push(hostMismatchFinding(ctx));
  try {
    out.push(...(await guarded('healthy', 'Server reports healthy', () => checkHealth(ctx), [], out)));
    if (ctx.reachable) {
      facts = await checkServedTarget(ctx, out, elsewhere, opts.recordReference);
    } else {
      for (const key of Object.keys(plan.expect.config)) {
        out.push(
          finding(`config.${key}`, `Config ${key}`, 'fail', {
            found: 'unknown: the target is not reachable',
          }),
        );
      }
    }
    out.push(...(await guarded('tools', 'Tools', () => checkTools(ctx), [], out)));
    if (!elsewhere) {
      const gpus = await guarded('gpus', 'GPUs', () => checkGpus(ctx), { findings: [], topology: null }, out);
      out.push(...gpus.findings);
      topology = gpus.topology;
    }
    out.push(
      ...(await guarded(
        'results_dir',
        'Results directory writable',
        () => checkResultsDir(plan.output),
        [],
        out,
      )),
    );
  } finally {
    if (!opts.host) await host.close().catch(() => undefined);
  }

  const report: CheckpointReport = {
    ok: gateFailed(out).length === 0,
    findings: out,
    checkedAt: new Date().toISOString(),
  };
  if (!ctx.reachable || !ctx.engine) return { report, verifiedTarget: null };
  const verifiedTarget = await verifiedTargetOf(ctx, facts, topology);
  return { report, verifiedTarget };
}
