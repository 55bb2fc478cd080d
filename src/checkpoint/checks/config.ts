// Config expectations judged on the facts read from the checkpoint's own evidence > live endpoints > the
// server process > the log (that precedence picks the value; a fact read directly always beats one
// inferred, whatever its layer; any direct source that contradicts the expectation is reported too).
// Live evidence of speculation outranks a command-line rule (speculation-evidence.ts).
// A required expectation on an unknown field fails and says where it could be read instead.

import type { ConfigFact, ConfigFacts } from '../../engines/types.js';
import type { Expectation } from '../../plan/schema.js';
import type { CheckContext } from '../context.js';
import { excerpt, finding } from '../context.js';
import { describeExpectation, judgeExpectation } from '../expectation.js';
import type { Evidence, Finding } from '../finding.js';
import { presenceAsked, reviseAlgorithm, type SpeculationRevision } from './speculation-evidence.js';

export interface FactLayers {
  /** Facts the checkpoint proved with its own requests (drafts accepted in the smoke request). */
  evidence?: ConfigFacts;
  live: ConfigFacts;
  process: ConfigFacts;
  logs: ConfigFacts[];
}

const layerMaps = (layers: FactLayers): ConfigFacts[] => [
  layers.evidence ?? {},
  layers.live,
  layers.process,
  ...layers.logs,
];

/** One map: each key from the highest-precedence layer that knows it (direct facts before inferred ones). */
export function mergeLayers(layers: FactLayers): ConfigFacts {
  const out: ConfigFacts = {};
  const keys = new Set(layerMaps(layers).flatMap((m) => Object.keys(m)));
  for (const k of keys) out[k] = candidates(layers, k)[0];
  const algorithm = reviseAlgorithm(candidates(layers, 'speculative.algorithm'), layerMaps(layers));
  if (algorithm.candidates.length > 0) out['speculative.algorithm'] = algorithm.candidates[0];
  else delete out['speculative.algorithm'];
  return out;
}

/** Every layer's fact for a key, in precedence order: direct facts by layer, then inferred ones by layer. */
function candidates(layers: FactLayers, key: string): ConfigFact[] {
  const all = layerMaps(layers)
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

/**
 * ` (GET /server_info was truncated after …)` when a live document was cut mid-way, and why a build rule
 * was not applied to a speculative key; else ''.
 */
function truncatedNote(layers: FactLayers, key: string): string {
  const notes = Object.entries(layers.live)
    .filter(([k]) => k.endsWith('.truncated_body'))
    .map(([, f]) => String(f.value));
  // why a rule that depends on the engine build was not applied (llama.cpp `-md` without `--spec-type`)
  if (key.startsWith('speculative.'))
    for (const m of [layers.process, ...layers.logs])
      for (const [k, f] of Object.entries(m))
        if (k.endsWith('.speculation_rule')) notes.push(String(f.value));
  return notes.length > 0 ? ` (${notes.join('; ')})` : '';
}

/** The finding for a key nothing read: where it could be read instead. */
function unknownFinding(
  ctx: CheckContext,
  layers: FactLayers,
  key: string,
  expected: string,
  note = '',
): Finding {
  const where = ctx.adapter?.whereToRead(key) ?? 'the server log or the process command line';
  return finding(`config.${key}`, `Config ${key}`, 'fail', {
    expected,
    found: `unknown${note}: not exposed by ${ctx.engine ?? 'the engine'}; read it from ${where}${truncatedNote(layers, key)}`,
    hint: `Add expect.logs with the server log, or run benchgate where it can read the server process (host:).`,
  });
}

/**
 * speculative.algorithm when live evidence shows drafts: a direct "none" is a disagreement reported with
 * both sources; with no algorithm named, only `present`/`absent` can be judged. Null when the ordinary
 * judgement applies (to the revised candidates).
 */
function algorithmFinding(
  ctx: CheckContext,
  layers: FactLayers,
  expectation: Expectation,
  revision: SpeculationRevision,
): Finding | null {
  const id = 'config.speculative.algorithm';
  const title = 'Config speculative.algorithm';
  const expected = describeExpectation(expectation);
  if (revision.disagreement) {
    const { none, active } = revision.disagreement;
    return finding(id, title, 'fail', {
      expected,
      found: `sources disagree: ${none.source} says no speculation, ${active.source} shows drafts accepted`,
      evidence: [none, active].map(evidenceOf),
      hint: 'The live evidence is what the server does; check which configuration the server really runs.',
    });
  }
  const active = revision.activeOnly;
  if (!active) return null;
  const asked = presenceAsked(expectation);
  if (asked === null)
    return unknownFinding(
      ctx,
      layers,
      'speculative.algorithm',
      expected,
      ` (the server speculates, ${active.source}, but which algorithm is not said)`,
    );
  return finding(id, title, asked === 'present' ? 'pass' : 'fail', {
    expected,
    found: 'speculating (algorithm not named by the server)',
    evidence: [evidenceOf(active)],
  });
}

/** One expectation judged on its key's candidates, contradicting direct sources reported. */
function judgeKey(key: string, expectation: Expectation, all: ConfigFact[]): Finding {
  const id = `config.${key}`;
  const title = `Config ${key}`;
  const verdict = judgeExpectation(expectation, all[0], key);
  // an inferred value (e.g. "no flag, so the default") never contradicts one read directly
  const contradicting = all
    .slice(1)
    .filter((f) => !f.inferred && judgeExpectation(expectation, f, key).outcome === 'fail');
  if (verdict.outcome === 'pass' && contradicting.length > 0)
    return finding(id, title, 'fail', {
      expected: verdict.expected,
      found: `sources disagree: ${all[0].source} says ${verdict.found}, ${contradicting
        .map((f) => `${f.source} says ${JSON.stringify(f.value)}`)
        .join(', ')}`,
      evidence: [all[0], ...contradicting].map(evidenceOf),
      hint: 'The server may have silently changed this setting; the log and process reflect what really runs.',
    });
  return finding(id, title, verdict.outcome === 'pass' ? 'pass' : 'fail', {
    expected: verdict.expected,
    found: `${verdict.found}${all[0]?.inferred ? ' (inferred)' : ''}`,
    evidence: all.length > 0 ? [evidenceOf(all[0])] : [],
    hint:
      verdict.outcome === 'fail'
        ? `Restart the server with the intended ${key}, or fix the plan.`
        : undefined,
  });
}

export function checkConfig(ctx: CheckContext, layers: FactLayers): Finding[] {
  const out: Finding[] = [];
  for (const [key, expectation] of Object.entries(ctx.plan.expect.config)) {
    let all = candidates(layers, key);
    if (key === 'speculative.algorithm') {
      const revision = reviseAlgorithm(all, layerMaps(layers));
      const special = algorithmFinding(ctx, layers, expectation, revision);
      if (special) {
        out.push(special);
        continue;
      }
      all = revision.candidates;
    }
    if (all.length === 0) out.push(unknownFinding(ctx, layers, key, describeExpectation(expectation)));
    else out.push(judgeKey(key, expectation, all));
  }
  return out;
}
