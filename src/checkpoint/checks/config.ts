// Config expectations judged on the facts read from live endpoints > the server process > the log
// (that precedence picks the value; a fact read directly always beats one inferred, whatever its layer;
// any direct source that contradicts the expectation is reported too).
// A required expectation on an unknown field fails and says where it could be read instead.

import type { ConfigFact, ConfigFacts } from '../../engines/types.js';
import type { CheckContext } from '../context.js';
import { excerpt, finding } from '../context.js';
import { judgeExpectation } from '../expectation.js';
import type { Evidence, Finding } from '../finding.js';

export interface FactLayers {
  live: ConfigFacts;
  process: ConfigFacts;
  logs: ConfigFacts[];
}

/** One map: each key from the highest-precedence layer that knows it (direct facts before inferred ones). */
export function mergeLayers(layers: FactLayers): ConfigFacts {
  const out: ConfigFacts = {};
  const keys = new Set([layers.live, layers.process, ...layers.logs].flatMap((m) => Object.keys(m)));
  for (const k of keys) out[k] = candidates(layers, k)[0];
  return out;
}

/** Every layer's fact for a key, in precedence order: direct facts by layer, then inferred ones by layer. */
function candidates(layers: FactLayers, key: string): ConfigFact[] {
  const all = [layers.live, layers.process, ...layers.logs]
    .map((m) => m[key])
    .filter((f): f is ConfigFact => f !== undefined);
  return [...all.filter((f) => !f.inferred), ...all.filter((f) => f.inferred)];
}

function sourceKind(source: string): Evidence['source'] {
  if (/^(GET|POST) /.test(source)) return 'endpoint';
  if (source.startsWith('/proc')) return 'process';
  return 'log';
}

const evidenceOf = (f: ConfigFact): Evidence => ({
  source: sourceKind(f.source),
  where: f.source,
  excerpt: excerpt(`${JSON.stringify(f.value)}${f.inferred ? ' (inferred)' : ''}`),
});

/** ` (GET /server_info was truncated after …)` when a live document was cut mid-way, else ''. */
function truncatedNote(layers: FactLayers): string {
  const notes = Object.entries(layers.live)
    .filter(([k]) => k.endsWith('.truncated_body'))
    .map(([, f]) => String(f.value));
  return notes.length > 0 ? ` (${notes.join('; ')})` : '';
}

export function checkConfig(ctx: CheckContext, layers: FactLayers): Finding[] {
  const out: Finding[] = [];
  const engine = ctx.engine ?? 'the engine';
  for (const [key, expectation] of Object.entries(ctx.plan.expect.config)) {
    const id = `config.${key}`;
    const title = `Config ${key}`;
    const all = candidates(layers, key);
    const verdict = judgeExpectation(expectation, all[0], key);
    if (verdict.outcome === 'unknown') {
      const where = ctx.adapter?.whereToRead(key) ?? 'the server log or the process command line';
      out.push(
        finding(id, title, 'fail', {
          expected: verdict.expected,
          found: `unknown: not exposed by ${engine}; read it from ${where}${truncatedNote(layers)}`,
          hint: `Add expect.logs with the server log, or run benchgate where it can read the server process (host:).`,
        }),
      );
      continue;
    }
    // an inferred value (e.g. "no flag, so the default") never contradicts one read directly
    const contradicting = all
      .slice(1)
      .filter((f) => !f.inferred && judgeExpectation(expectation, f, key).outcome === 'fail');
    if (verdict.outcome === 'pass' && contradicting.length > 0) {
      out.push(
        finding(id, title, 'fail', {
          expected: verdict.expected,
          found: `sources disagree: ${all[0].source} says ${verdict.found}, ${contradicting
            .map((f) => `${f.source} says ${JSON.stringify(f.value)}`)
            .join(', ')}`,
          evidence: [all[0], ...contradicting].map(evidenceOf),
          hint: 'The server may have silently changed this setting; the log and process reflect what really runs.',
        }),
      );
      continue;
    }
    out.push(
      finding(id, title, verdict.outcome, {
        expected: verdict.expected,
        found: `${verdict.found}${all[0]?.inferred ? ' (inferred)' : ''}`,
        evidence: all.length > 0 ? [evidenceOf(all[0])] : [],
        hint:
          verdict.outcome === 'fail'
            ? `Restart the server with the intended ${key}, or fix the plan.`
            : undefined,
      }),
    );
  }
  return out;
}
