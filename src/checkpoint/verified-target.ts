// The verified target stored in every run's manifest (normalised config, raw documents, engine version,
// model, server start time, fingerprint), and the cheap re-read after each level that detects drift.

import { createHash } from 'node:crypto';
import type { ConfigFacts, EngineAdapter, TargetHttp, VerifiedTarget } from '../engines/types.js';
import type { ProcessHost, ProcessInfo } from '../hosts/host.js';
import { findListeningServer } from './checks/server-process.js';
import { targetPort } from './context.js';
import { valuesEqual } from './expectation.js';

/** Key under which the raw documents keep the server's Prometheus process start time. */
export const METRICS_START_KEY = 'GET /metrics process_start_time_seconds';

/** The standard Prometheus `process_start_time_seconds` gauge (epoch seconds), or null. */
export async function readMetricsStartTimeS(http: TargetHttp): Promise<number | null> {
  const doc = await http.request('/metrics', { timeoutMs: 5000 });
  if (doc.status !== 200) return null;
  const m = /^process_start_time_seconds(?:\{[^}]*\})?\s+([0-9.eE+-]+)\s*$/m.exec(doc.text);
  const v = m ? Number(m[1]) : Number.NaN;
  return Number.isFinite(v) && v > 0 ? v : null;
}

/** JSON with object keys sorted at every level, so equal content always hashes equally. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .filter((k) => o[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

export function fingerprintOf(
  t: Pick<VerifiedTarget, 'config' | 'engineVersion' | 'model' | 'processStartTime' | 'engine'>,
): string {
  const values: Record<string, unknown> = {};
  for (const [k, f] of Object.entries(t.config)) values[k] = f.value;
  const doc = {
    engine: t.engine,
    engineVersion: t.engineVersion,
    model: t.model,
    processStartTime: t.processStartTime,
    config: values,
  };
  return `sha256:${createHash('sha256').update(canonicalJson(doc)).digest('hex')}`;
}

export function buildVerifiedTarget(parts: Omit<VerifiedTarget, 'fingerprint'>): VerifiedTarget {
  return { ...parts, fingerprint: fingerprintOf(parts) };
}

/**
 * Re-reads the cheap parts of the fingerprint (server process start time, live config such as
 * server_info, engine version, model) and says whether the target is still the one verified.
 */
export async function readFingerprintCheap(opts: {
  target: VerifiedTarget;
  http: TargetHttp;
  adapter: EngineAdapter;
  host?: ProcessHost;
}): Promise<{ valid: boolean; reasons: string[] }> {
  const { target } = opts;
  const reasons: string[] = [];
  if (opts.host && target.processStartTime) {
    let now: ProcessInfo | null = null;
    try {
      now = (await findListeningServer(opts.host, targetPort(target.url))).server;
    } catch {
      // unreadable: judged like a vanished server
    }
    if (!now) reasons.push(`no server process listens on ${target.url} any more`);
    else if (now.startTime !== target.processStartTime) {
      reasons.push(
        `the server process restarted: started ${now.startTime ?? 'unknown'} (PID ${now.pid}), verified ${target.processStartTime}`,
      );
    }
  }
  const wasS = target.raw[METRICS_START_KEY];
  if (typeof wasS === 'number') {
    const nowS = await readMetricsStartTimeS(opts.http).catch(() => null);
    if (nowS === null)
      reasons.push(
        'GET /metrics no longer reports process_start_time_seconds (the server may be restarting)',
      );
    else if (Math.abs(nowS - wasS) > 0.5) {
      reasons.push(
        `the server restarted: process_start_time_seconds is ${new Date(nowS * 1000).toISOString()}, verified ${new Date(wasS * 1000).toISOString()}`,
      );
    }
  }
  let live: ConfigFacts = {};
  try {
    live = (await opts.adapter.readLive(opts.http)).facts;
  } catch (e) {
    reasons.push(`the live configuration could not be re-read: ${(e as Error).message}`);
  }
  if (Object.keys(live).length === 0 && reasons.length === 0)
    reasons.push('the live configuration endpoints answered nothing');
  for (const [key, fact] of Object.entries(live)) {
    const was = target.config[key];
    // only compare what was verified from the same live source; keys first seen now are new facts, not drift
    if (was && was.source === fact.source && !valuesEqual(was.value, fact.value)) {
      reasons.push(
        `${key} changed from ${JSON.stringify(was.value)} to ${JSON.stringify(fact.value)} (${fact.source})`,
      );
    }
  }
  return { valid: reasons.length === 0, reasons };
}
