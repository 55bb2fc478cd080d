// Live evidence that a server speculates (`speculative.active`: drafts accepted in the checkpoint's own
// smoke request, /slots, counters) outranks a rule inferred from its command line. Where the rule said
// "no speculation" the evidence wins, with the algorithm the configuration runs when it speculates
// (`speculative.algorithm_if_active`, set by an adapter whose rule depends on the build) or, without
// one, only "speculating, algorithm unknown". Where a fact read directly disagrees, both are reported.

import type { ConfigFact, ConfigFacts } from '../../engines/types.js';
import type { Expectation } from '../../plan/schema.js';

export interface SpeculationRevision {
  /** The algorithm facts to judge, in precedence order. */
  candidates: ConfigFact[];
  /** A fact read directly that says "none" while the live evidence shows drafts: both, for the finding. */
  disagreement: { none: ConfigFact; active: ConfigFact } | null;
  /** The live evidence, when it shows the server speculating and no candidate names the algorithm. */
  activeOnly: ConfigFact | null;
}

/** The first direct `key` fact of the given layers (evidence first), or undefined. */
function directFact(maps: readonly ConfigFacts[], key: string): ConfigFact | undefined {
  return maps.map((m) => m[key]).find((f) => f !== undefined && !f.inferred);
}

/** The algorithm facts revised by live evidence of speculation (see the header). */
export function reviseAlgorithm(
  all: readonly ConfigFact[],
  maps: readonly ConfigFacts[],
): SpeculationRevision {
  const active = directFact(maps, 'speculative.active');
  const unchanged = { candidates: [...all], disagreement: null, activeOnly: null };
  if (active?.value !== true) return unchanged;
  const best = all[0];
  if (best !== undefined && best.value !== null) return unchanged;
  if (best !== undefined && !best.inferred) return { ...unchanged, disagreement: { none: best, active } };
  const ifActive = maps.map((m) => m['speculative.algorithm_if_active']).find((f) => f !== undefined);
  const rest = all.filter((f) => f.value !== null);
  if (ifActive && ifActive.value !== null) {
    const overruled = best ? `; it outranks ${best.source}` : '';
    const fact: ConfigFact = {
      value: ifActive.value,
      source: `${ifActive.source}, as live evidence shows the server speculating (${active.source})${overruled}`,
      inferred: true,
    };
    return { candidates: [fact, ...rest], disagreement: null, activeOnly: null };
  }
  return { candidates: rest, disagreement: null, activeOnly: rest.length === 0 ? active : null };
}

/** An expectation that only asks whether speculation is configured (`present` or `absent`), else null. */
export function presenceAsked(e: Expectation): 'present' | 'absent' | null {
  if (e === null || typeof e !== 'object') return null;
  if ('present' in e) return 'present';
  if ('absent' in e) return 'absent';
  return null;
}
