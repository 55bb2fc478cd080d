// llama-server's speculative acceptance in its log, 2025–2026. Per request (server print_timings):
// `draft acceptance rate = 0.57576 (   19 accepted /    33 generated)` on a line of its own (b4984 on;
// still so at b9402, run 2026-12-04), `draft acceptance = … (… accepted / … generated)` (a paste of a
// build b9232) and `…, mean len =  1.02` (b9838 on). Per speculative type, counted since the server started (common_speculative_print_stats, info
// level b7869–b9837, trace after): `statistics draft: #calls = …, #gen tokens = N, #acc tokens = N`,
// from b8967 `statistics draft-simple: #calls(b,g,a) = …`, from b9838 with `#mean acc len = L`.
// Per verify step, at debug verbosity only (-v), every build: `accepted 1/8 draft tokens, new n_past = 29`
// (`new n_tokens` later); the only acceptance a build before b4984 gives, used when nothing else is there.

import { setFact } from './facts.js';
import { type AcceptanceParser, readAcceptance } from './log-reading.js';
import type { LogLine } from './logtext.js';
import type { AcceptanceReading, ConfigFacts } from './types.js';

const REQUEST_RE =
  /draft acceptance(?: rate)? = ([\d.]+) \(\s*(\d+) accepted \/\s*(\d+) generated\)(?:, mean len =\s*(\d+\.\d\d)\b)?/;
const STATISTICS_RE =
  /statistics\s+([\w-]+): #calls(?:\(b,g,a\))? = [\d ]+, #gen drafts = \s*(\d+), #acc drafts = \s*(\d+), #gen tokens = \s*(\d+), #acc tokens = \s*(\d+)(?:.*?#mean acc len = ([\d.]+))?/;

const STEP_RE = /\baccepted (\d+)\/(\d+) draft tokens, new n_(?:past|tokens) = \d+/;

/** A per-step debug line (`accepted N/M draft tokens`) as a sample: one verify step. */
export const parseLlamacppStepLine: AcceptanceParser = (text) => {
  const m = STEP_RE.exec(text);
  return m ? { accepted: Number(m[1]), drafted: Number(m[2]) } : null;
};

/** A per-request acceptance line as a sample; its mean length only where the build printed one. */
export const parseLlamacppAcceptanceLine: AcceptanceParser = (text) => {
  const m = REQUEST_RE.exec(text);
  if (!m) return null;
  const sample = { accepted: Number(m[2]), drafted: Number(m[3]) };
  return m[4] !== undefined ? { ...sample, meanLength: Number(m[4]) } : sample;
};

interface TypeStatistics {
  line: LogLine;
  generated: number;
  accepted: number;
  meanLength: number | null;
}

/** The last `statistics` line of each speculative type (each holds that type's totals since start). */
function lastStatisticsByType(lines: readonly LogLine[]): Map<string, TypeStatistics> {
  const byType = new Map<string, TypeStatistics>();
  for (const line of lines) {
    const m = STATISTICS_RE.exec(line.text);
    if (!m) continue;
    const meanLength = m[6] !== undefined ? Number(m[6]) : null;
    byType.set(m[1], { line, generated: Number(m[4]), accepted: Number(m[5]), meanLength });
  }
  return byType;
}

/** The statistics lines as one acceptance reading: totals summed over types; null when there are none. */
function statisticsReading(
  lines: readonly LogLine[],
  path: string,
  facts: ConfigFacts,
): AcceptanceReading | null {
  const byType = lastStatisticsByType(lines);
  if (byType.size === 0) return null;
  const all = [...byType.values()];
  const last = all.reduce((a, s) => (s.line.line > a.line.line ? s : a));
  for (const [type, s] of byType) {
    const src = `${path}:${s.line.line}`;
    setFact(facts, `llamacpp.log_spec_stats.${type}.generated_tokens`, s.generated, src);
    setFact(facts, `llamacpp.log_spec_stats.${type}.accepted_tokens`, s.accepted, src);
    if (s.meanLength !== null)
      setFact(facts, `llamacpp.log_spec_stats.${type}.mean_acceptance_length`, s.meanLength, src);
  }
  const accepted = all.reduce((a, s) => a + s.accepted, 0);
  const means = all.map((s) => s.meanLength).filter((m): m is number => m !== null);
  const maxMeanLength = means.length > 0 ? Math.max(...means) : null;
  return {
    lines: all.length,
    firstLine: Math.min(...all.map((s) => s.line.line)),
    lastLine: last.line.line,
    maxMeanLength,
    acceptedTokens: accepted,
    draftedTokens: all.reduce((a, s) => a + s.generated, 0),
    neverAccepted: accepted === 0 && (maxMeanLength === null || maxMeanLength <= 1.005),
    excerpt: last.line.text.trim().slice(0, 300),
  };
}

/** Per-request totals as facts (`llamacpp.log_draft_*`). */
function requestFacts(reading: AcceptanceReading, path: string, facts: ConfigFacts): void {
  const src = `${path} (${reading.lines} "draft acceptance" line(s), last at line ${reading.lastLine})`;
  const accepted = reading.acceptedTokens ?? 0;
  const generated = reading.draftedTokens ?? 0;
  setFact(facts, 'llamacpp.log_draft_requests', reading.lines, src);
  setFact(facts, 'llamacpp.log_draft_accepted_tokens', accepted, src);
  setFact(facts, 'llamacpp.log_draft_generated_tokens', generated, src);
  setFact(facts, 'llamacpp.log_draft_acceptance_rate', generated > 0 ? accepted / generated : null, src);
}

/** Per-step totals as facts (`llamacpp.log_draft_steps`, …): each debug line is one verify step. */
function stepFacts(reading: AcceptanceReading, path: string, facts: ConfigFacts): void {
  const src = `${path} (${reading.lines} "accepted N/M draft tokens" debug line(s), last at line ${reading.lastLine})`;
  setFact(facts, 'llamacpp.log_draft_steps', reading.lines, src);
  setFact(facts, 'llamacpp.log_draft_accepted_tokens', reading.acceptedTokens ?? 0, src);
  setFact(facts, 'llamacpp.log_draft_generated_tokens', reading.draftedTokens ?? 0, src);
}

/**
 * The acceptance of the current start: per-request lines when it has them (summed), else its
 * statistics lines (the last per type, which already hold the totals: never summed line by line), else
 * its per-step debug lines (summed; printed with -v, alongside the others on builds that have them).
 */
export function readLlamacppAcceptance(
  current: readonly LogLine[],
  path: string,
  facts: ConfigFacts,
): AcceptanceReading | null {
  const perRequest = readAcceptance(current, parseLlamacppAcceptanceLine);
  const statistics = statisticsReading(current, path, facts);
  if (perRequest) requestFacts(perRequest, path, facts);
  if (perRequest || statistics) return perRequest ?? statistics;
  const steps = readAcceptance(current, parseLlamacppStepLine);
  if (steps) stepFacts(steps, path, facts);
  return steps;
}
