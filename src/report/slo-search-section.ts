// The SLO search section of a report or comparison (model in slo-search-model.ts): the answer first,
// with the SLOs, share, precision and why the search stopped, then every probe in the order run with its
// share meeting the SLOs and pass/fail, then the verdicts on the found loads. A separate module, so the
// renderers each add one call: text and Markdown put it right after the runs, HTML after the validity
// section, CSV adds rows, JSON carries the section as it is.

import { formatPercent } from './format.js';
import { evidenceWords, loadWords, type SloSearchSection, type SloSearchView } from './slo-search-model.js';

type ReadView = Extract<SloSearchView, { status: 'read' }>;

export const SLO_SEARCH_TITLE = 'SLO search';
export const PROBE_HEADER = [
  '#',
  'load',
  'offered',
  'achieved',
  'steady s',
  'judged',
  'met the SLOs',
  'result',
];
/** Columns right-aligned in Markdown and HTML (the rest are text). */
const TEXT_COLUMNS = new Set([1, 7]);

type ProbeRow = ReadView['probes'][number];
const num = (v: number) => String(Number(v.toPrecision(3)));

/** The outcome with a short why: "fail: not sustained", "inconclusive: too few samples". */
function resultWords(p: ProbeRow): string {
  const repeat = p.repeat ? ' (repeat)' : '';
  if (p.outcome === 'pass') return `pass${repeat}`;
  const e = p.evidence;
  let why = '';
  if (p.outcome === 'inconclusive') why = e?.steady ? 'too few samples' : 'no steady window';
  else if (p.reason?.startsWith('stopped by its error rate')) why = 'error-rate stop';
  else if (e && !e.sustained) why = 'not sustained';
  else if (e) why = 'share below target';
  return `${p.outcome}${why ? `: ${why}` : ''}${repeat}`;
}

/** The answer's 95% interval as two CSV rows (none in files written before it). */
function intervalRows(v: ReadView, unit: string) {
  const i = v.interval;
  if (!i || i.low === null || i.high === null) return [];
  const note = `95% bootstrap over ${i.probes} probes of an isotonic fit of the share meeting the SLOs against offered load; fitted answer ${i.estimate}`;
  return [
    {
      metric: 'slo_search_interval_low',
      value: i.low,
      bound: i.lowCensored ? ' (a bound: below the lowest probe)' : '',
    },
    {
      metric: 'slo_search_interval_high',
      value: i.high,
      bound: i.highCensored ? ' (a bound: above the highest probe)' : '',
    },
  ].map((r) => ({
    run: v.run,
    metric: r.metric,
    unit,
    kind: v.over,
    value: r.value,
    load: null,
    note: `${note}${r.bound}`,
  }));
}

export function probeRows(v: ReadView): string[][] {
  return v.probes.map((p) => {
    const e = p.evidence;
    return [
      String(p.order),
      loadWords(v.over, p.value),
      e ? num(e.offered) : '—',
      e ? `${num(e.achieved)} (${formatPercent(e.offered > 0 ? e.achieved / e.offered : 0)})` : '—',
      e?.steady ? num(e.steady.windowS) : '—',
      e ? `${e.samples}${e.floor !== null && e.samples < e.floor ? ` (<${e.floor})` : ''}` : '—',
      formatPercent(p.share),
      resultWords(p),
    ];
  });
}

/** The facts under the answer: its evidence, SLOs and share, precision, what stopped the search, non-monotonic pairs. */
export function searchFacts(v: ReadView): string[] {
  return [
    ...(v.evidenceText ? [`evidence ${v.evidenceText}`] : []),
    `SLOs: ${v.sloText}, for ${formatPercent(v.requiredShare)} of requests`,
    `precision: ${loadWords(v.over, v.precision).replace('concurrency ', '')}; stopped: ${v.stoppedText}`,
    ...v.nonMonotonicText,
  ];
}

function alignedTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

export function sloSearchTextLines(s: SloSearchSection | undefined): string[] {
  if (!s) return [];
  const out = [SLO_SEARCH_TITLE];
  for (const v of s.runs) {
    if (v.status === 'unreadable') {
      out.push(`  ${v.run}: the search outcome is unreadable: ${v.reason}`);
      continue;
    }
    out.push(`  ${v.run}: ${v.answer}`, ...searchFacts(v).map((f) => `    ${f}`));
    out.push(...alignedTable(PROBE_HEADER, probeRows(v)).map((l) => `    ${l}`));
  }
  if (s.verdicts.length) out.push('  Found loads compared:', ...s.verdicts.map((t) => `  - ${t}`));
  return out;
}

export function sloSearchMarkdownLines(
  s: SloSearchSection | undefined,
  mdEscape: (s: string) => string,
): string[] {
  if (!s) return [];
  const out = ['', `## ${SLO_SEARCH_TITLE}`];
  for (const v of s.runs) {
    if (v.status === 'unreadable') {
      out.push('', `**${mdEscape(v.run)}**: the search outcome is unreadable: ${mdEscape(v.reason)}`);
      continue;
    }
    out.push('', `**${mdEscape(v.run)}**: ${mdEscape(v.answer)}`, '');
    out.push(...searchFacts(v).map((f) => `- ${mdEscape(f)}`), '');
    out.push(
      `| ${PROBE_HEADER.join(' | ')} |`,
      `|${PROBE_HEADER.map((_, i) => (TEXT_COLUMNS.has(i) ? '---' : '---:')).join('|')}|`,
    );
    for (const r of probeRows(v)) out.push(`| ${r.map(mdEscape).join(' | ')} |`);
  }
  if (s.verdicts.length) out.push('', ...s.verdicts.map((t) => `- ${mdEscape(t)}`));
  return out;
}

export function sloSearchHtml(s: SloSearchSection | undefined, esc: (s: string) => string): string {
  if (!s) return '';
  const h = [`<h2 id="slo-search">${SLO_SEARCH_TITLE}</h2>`];
  for (const v of s.runs) {
    if (v.status === 'unreadable') {
      h.push(
        `<div class="warning"><strong>${esc(v.run)}</strong>: the search outcome is unreadable: ${esc(v.reason)}</div>`,
      );
      continue;
    }
    h.push(`<p><strong>${esc(v.run)}</strong>: ${esc(v.answer)}</p>`);
    h.push(
      `<ul>${searchFacts(v)
        .map((f) => `<li>${esc(f)}</li>`)
        .join('')}</ul>`,
    );
    const cls = (i: number) => (TEXT_COLUMNS.has(i) ? ' class="text"' : '');
    const head = PROBE_HEADER.map((c, i) => `<th${cls(i)}>${esc(c)}</th>`).join('');
    const rows = probeRows(v).map(
      (r, i) =>
        `<tr class="${v.probes[i].passed ? '' : 'worse'}">${r.map((c, j) => `<td${cls(j)}>${esc(c)}</td>`).join('')}</tr>`,
    );
    h.push(`<table><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`);
  }
  if (s.verdicts.length)
    h.push(`<ul class="verdicts">${s.verdicts.map((t) => `<li>${esc(t)}</li>`).join('')}</ul>`);
  return h.join('\n');
}

/** CSV rows (long form): the found load per run, then each probe's share meeting the SLOs. */
export interface SloSearchCsvRow {
  run: string;
  metric: string;
  unit: string;
  kind: string;
  value: number | null;
  load: number | null;
  note: string;
}

export function sloSearchCsvRows(s: SloSearchSection | undefined): SloSearchCsvRow[] {
  if (!s) return [];
  return s.runs.flatMap((v): SloSearchCsvRow[] => {
    if (v.status === 'unreadable')
      return [
        {
          run: v.run,
          metric: 'slo_search_found',
          unit: '',
          kind: '',
          value: null,
          load: null,
          note: `unreadable: ${v.reason}`,
        },
      ];
    const unit = v.over === 'rate' ? 'req/s' : 'concurrency';
    return [
      {
        run: v.run,
        metric: 'slo_search_found',
        unit,
        kind: v.over,
        value: v.best,
        load: v.best,
        note: `${v.answer}; SLOs ${v.sloText}; stopped: ${v.stoppedText}`,
      },
      ...intervalRows(v, unit),
      ...v.probes.map((p) => ({
        run: v.run,
        metric: 'slo_search_probe_share',
        unit: 'share',
        kind: v.over,
        value: p.share,
        load: p.value,
        note: `probe ${p.order}: ${p.reason ? `${p.outcome}: ${p.reason}` : resultWords(p)} (needs ${formatPercent(v.requiredShare)})`,
      })),
      ...v.probes.flatMap((p) => {
        const e = p.evidence;
        if (!e) return [];
        return [
          {
            run: v.run,
            metric: 'slo_search_probe_achieved',
            unit: e.unit,
            kind: v.over,
            value: e.achieved,
            load: p.value,
            note: `probe ${p.order}: ${evidenceWords(e)}`,
          },
        ];
      }),
    ];
  });
}
