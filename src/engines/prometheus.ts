// A tolerant parser for the Prometheus text exposition format as engines serve it on /metrics:
// HELP/TYPE lines, labels (escaped values, extra labels), exponent-form numbers, +Inf/-Inf/NaN,
// optional timestamps. Malformed lines are skipped, never fatal.

export interface PromSample {
  /** Metric name as written (e.g. `vllm:spec_decode_num_drafts_total`). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromScrape {
  samples: PromSample[];
  /** `# TYPE` declarations by family name. */
  types: Record<string, string>;
}

const NAME_RE = /^[A-Za-z_:][\w:]*/;

export function parsePrometheusText(text: string): PromScrape {
  const samples: PromSample[] = [];
  const types: Record<string, string> = {};
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (m) types[m[1]] = m[2].toLowerCase();
      continue;
    }
    const sample = parseSampleLine(line);
    if (sample) samples.push(sample);
  }
  return { samples, types };
}

function parseSampleLine(line: string): PromSample | null {
  const nm = NAME_RE.exec(line);
  if (!nm) return null;
  const name = nm[0];
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === '{') {
    pos++;
    for (;;) {
      while (line[pos] === ' ' || line[pos] === ',') pos++;
      if (line[pos] === '}') {
        pos++;
        break;
      }
      const ln = /^[A-Za-z_][\w]*/.exec(line.slice(pos));
      if (!ln) return null;
      pos += ln[0].length;
      while (line[pos] === ' ') pos++;
      if (line[pos] !== '=') return null;
      pos++;
      while (line[pos] === ' ') pos++;
      if (line[pos] !== '"') return null;
      pos++;
      let value = '';
      while (pos < line.length && line[pos] !== '"') {
        if (line[pos] === '\\' && pos + 1 < line.length) {
          const n = line[pos + 1];
          value += n === 'n' ? '\n' : n;
          pos += 2;
        } else value += line[pos++];
      }
      if (line[pos] !== '"') return null;
      pos++;
      labels[ln[0]] = value;
    }
  }
  const rest = line.slice(pos).trim().split(/\s+/);
  const value = parsePromNumber(rest[0] ?? '');
  if (value === null) return null;
  return { name, labels, value };
}

/** Parses a sample value: decimals, exponent form (`1.5e+03`), `+Inf`, `-Inf`, `NaN`. */
export function parsePromNumber(s: string): number | null {
  if (s === '') return null;
  const lower = s.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Infinity;
  if (lower === '-inf') return -Infinity;
  if (lower === 'nan') return Number.NaN;
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(s)) return null;
  return Number(s);
}

/**
 * Candidate spellings of a metric: the prefix with `:` or `_` (`vllm:x` / `vllm_x`), with and
 * without the `_total` suffix counters gain or lose across client-library versions.
 */
export function metricNameVariants(prefix: string, base: string): string[] {
  const stem = base.replace(/_total$/, '');
  const out: string[] = [];
  for (const sep of [':', '_'])
    for (const suffix of ['_total', '']) out.push(`${prefix}${sep}${stem}${suffix}`);
  return out;
}

/**
 * Sum of a metric's samples over all label sets, trying each spelling variant in order; the first
 * spelling with samples wins (so `x_total` and `x` exposed together are not double-counted).
 * Undefined when no spelling is present. `filter` restricts which label sets count.
 */
export function sumMetric(
  scrape: PromScrape,
  prefix: string,
  base: string,
  filter?: (labels: Record<string, string>) => boolean,
): number | undefined {
  for (const name of metricNameVariants(prefix, base)) {
    const matching = scrape.samples.filter((s) => s.name === name && (!filter || filter(s.labels)));
    if (matching.length > 0) return matching.reduce((acc, s) => acc + s.value, 0);
  }
  return undefined;
}

/** Samples of the first present spelling of a metric (for label-carrying info metrics). */
export function findSamples(scrape: PromScrape, prefix: string, base: string): PromSample[] {
  for (const name of metricNameVariants(prefix, base)) {
    const matching = scrape.samples.filter((s) => s.name === name);
    if (matching.length > 0) return matching;
  }
  return [];
}

/** The `spec_decode_*` counter family vLLM defines and llama-server copies (same names, another prefix). */
export interface SpecDecodeCounters {
  drafts?: number;
  draftTokens?: number;
  acceptedTokens?: number;
  /** Accepted draft tokens by draft position (index 0 = first drafted token), summed over label sets. */
  acceptedTokensPerPosition?: number[];
}

/** Reads `<prefix>:spec_decode_num_{drafts,draft_tokens,accepted_tokens,accepted_tokens_per_pos}_total`; null when none is exposed. */
export function specDecodeCounters(scrape: PromScrape, prefix: string): SpecDecodeCounters | null {
  const drafts = sumMetric(scrape, prefix, 'spec_decode_num_drafts_total');
  const draftTokens = sumMetric(scrape, prefix, 'spec_decode_num_draft_tokens_total');
  const accepted = sumMetric(scrape, prefix, 'spec_decode_num_accepted_tokens_total');
  const perPosSamples = findSamples(scrape, prefix, 'spec_decode_num_accepted_tokens_per_pos_total');
  if (
    drafts === undefined &&
    draftTokens === undefined &&
    accepted === undefined &&
    perPosSamples.length === 0
  )
    return null;
  const out: SpecDecodeCounters = {};
  if (drafts !== undefined) out.drafts = drafts;
  if (draftTokens !== undefined) out.draftTokens = draftTokens;
  if (accepted !== undefined) out.acceptedTokens = accepted;
  if (perPosSamples.length > 0) {
    const perPos: number[] = [];
    for (const s of perPosSamples) {
      const pos = Number(s.labels.position);
      if (Number.isInteger(pos) && pos >= 0) perPos[pos] = (perPos[pos] ?? 0) + s.value;
    }
    out.acceptedTokensPerPosition = Array.from(perPos, (v) => v ?? 0);
  }
  return out;
}
