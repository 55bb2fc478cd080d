// The runs table (filters, validity badges, pick runs to compare or diff), one run's page (levels,
// validity reasons, configuration), and the configuration diff of picked runs. Server-rendered from the
// store; the forms work without script.

import type { LevelSummary } from '../metrics/summary.js';
import { withheldNote } from '../metrics/tail-samples.js';
import type { Row, StoreDb } from '../store/db.js';
import { configValues } from '../store/run-config.js';
import { findRun, listRuns, parseCondition, type RunFilter, type RunListRow } from '../store/run-query.js';
import { badge, esc, page, runLink, table, td } from './layout.js';

export interface RunsQuery {
  name?: string;
  engine?: string;
  where?: string;
  validity?: string;
}

/** The runs page's filter from its query string (`where` holds one KEY=VALUE per line or comma). */
export function runsFilter(q: RunsQuery): RunFilter {
  const where = (q.where ?? '')
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean)
    .map((w) => parseCondition(w, 'where'));
  return {
    name: q.name || undefined,
    engine: q.engine || undefined,
    where,
    validity: q.validity ? [q.validity] : undefined,
  };
}

const SHOWN_KEYS = ['speculative.algorithm', 'speculative.topk', 'overlap_schedule', 'tp_size'];

function filterForm(q: RunsQuery): string {
  const opt = (v: string) => `<option${q.validity === v ? ' selected' : ''}>${v}</option>`;
  return `<form class="filters" method="get" action="/">
<label>name<input name="name" value="${esc(q.name ?? '')}" placeholder="eagle3*"></label>
<label>engine<input name="engine" value="${esc(q.engine ?? '')}" size="8"></label>
<label>config (KEY=VALUE, comma-separated)<input name="where" value="${esc(q.where ?? '')}" size="40" placeholder="speculative.algorithm=EAGLE3"></label>
<label>validity<select name="validity"><option value="">any</option>${['valid', 'suspect', 'invalid'].map(opt).join('')}</select></label>
<button type="submit">Filter</button></form>`;
}

export async function runsPage(db: StoreDb, q: RunsQuery): Promise<string> {
  const runs = (await listRuns(db, runsFilter(q))).reverse();
  const cfg = await configValues(
    db,
    runs.map((r) => r.dir),
    SHOWN_KEYS,
  );
  const best = new Map(
    (await db.all('SELECT dir, max(output_tokens_per_s) AS best FROM levels GROUP BY dir')).map((r) => [
      String(r.dir),
      Number(r.best),
    ]),
  );
  const rows = runs.map((r) => [
    `<td><input type="checkbox" name="run" value="${esc(r.id)}" aria-label="pick ${esc(r.id)}"></td>`,
    td(runLink(r.id), true),
    td(r.name),
    td(`${r.engine ?? '—'} ${r.engineVersion ?? ''}`),
    td(badge(r.validity), true),
    td(r.status),
    td(r.startedAt?.replace('T', ' ').replace(/\.\d+Z$/, 'Z') ?? null),
    td(r.levelCount),
    td(best.get(r.dir) ?? null),
    ...SHOWN_KEYS.map((k) => td(cfg.get(r.dir)?.[k] ?? '—')),
  ]);
  const head = [
    '',
    'run',
    'name',
    'engine',
    'validity',
    'status',
    'started (UTC)',
    'levels',
    'best out tok/s',
    ...SHOWN_KEYS,
  ];
  const body = `<h1>Runs <span class="note">(${runs.length})</span></h1>${filterForm(q)}
<form method="get" action="/compare" id="pick">
<p><button type="submit">Compare picked runs</button> <button type="submit" formaction="/diff">Config diff of picked runs</button>
<span class="note">The oldest picked run is the baseline; the comparison page lets you choose another.</span></p>
${table(head, rows, ' id="runs"')}</form>`;
  return page('Runs', '/', body);
}

/** A level's stored validity reasons (the store's JSON column); none when it holds none. */
function storedReasons(v: unknown): { severity: string; check: string; text: string }[] {
  try {
    const r = JSON.parse(String(v ?? '[]'));
    return Array.isArray(r) ? r : [];
  } catch {
    return [];
  }
}

/** The TTFT p99 cell: the store's number, or why it is withheld ("p99 n/a (50 samples; ≥662 needed…)"). */
function ttftP99Cell(l: Row): string | number | null {
  if (typeof l.ttft_p99_ms === 'number') return l.ttft_p99_ms;
  try {
    const summary = JSON.parse(String(l.summary)) as LevelSummary;
    return withheldNote(summary.ttftMs, 99);
  } catch {
    return null;
  }
}

export async function runPage(db: StoreDb, id: string): Promise<string> {
  const run = await findRun(db, id, id);
  const levels = await db.all('SELECT * FROM levels WHERE dir = ? ORDER BY level_index', [run.dir]);
  const meta = (await db.all('SELECT validity_reasons, warnings FROM runs WHERE dir = ?', [run.dir]))[0];
  const reasons = JSON.parse(String(meta?.validity_reasons ?? '[]')) as { severity: string; text: string }[];
  const cfg = (await configValues(db, [run.dir])).get(run.dir) ?? {};
  const levelRows = levels.map((l) => [
    td(String(l.label)),
    td(badge(String(l.validity ?? 'valid')), true),
    ...['completed', 'failed', 'output_tokens_per_s', 'ttft_p50_ms'].map((k) => td((l[k] as number) ?? null)),
    td(ttftP99Cell(l)),
    ...['tpot_p50_ms', 'token_itl_p50_ms', 'e2e_p50_ms', 'acceptance_length'].map((k) =>
      td((l[k] as number) ?? null),
    ),
  ]);
  const levelReasons = levels.flatMap((l) =>
    storedReasons(l.validity_reasons)
      .filter((r) => r.check !== 'samples')
      .map((r) => `<li>${esc(String(l.label))}: <b>${esc(r.severity)}</b>: ${esc(r.text)}</li>`),
  );
  const links = [
    run.configFingerprint
      ? `<a href="/history?config=${encodeURIComponent(run.configFingerprint)}&metric=output_throughput">history of this configuration</a>`
      : '',
    run.matrixDir
      ? `<a href="/pareto?matrix=${encodeURIComponent(run.matrixDir)}">Pareto view of its matrix</a>`
      : '',
  ].filter(Boolean);
  const body = `<h1>${esc(run.id)} ${badge(run.validity)}</h1>
<p>${esc(run.name)} · ${esc(run.engine ?? '—')} ${esc(run.engineVersion ?? '')} · ${esc(run.model ?? '')} · ${run.gpus ?? '?'} GPU(s) · ${esc(run.status)} · started ${esc(run.startedAt ?? '—')}</p>
<p class="note">${esc(run.dir)}</p><p>${links.join(' · ')}</p>
${reasons.length ? `<h2>Validity</h2><ul id="validity">${reasons.map((r) => `<li><b>${esc(r.severity)}</b>: ${esc(r.text)}</li>`).join('')}</ul>` : ''}
${levelReasons.length ? `<h3>Why, level by level</h3><ul id="level-validity">${levelReasons.join('')}</ul>` : ''}
<h2>Levels</h2>${table(['level', 'validity', 'ok', 'failed', 'out tok/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'ITL p50', 'E2E p50', 'accept len'], levelRows)}
<p class="note">times in ms</p>
<h2>Configuration</h2>${table(
    ['key', 'value'],
    Object.entries(cfg).map(([k, v]) => [td(k), td(v)]),
  )}`;
  return page(run.id, '/', body);
}

export async function diffPage(db: StoreDb, ids: readonly string[]): Promise<string> {
  const runs: RunListRow[] = [];
  for (const id of ids) runs.push(await findRun(db, id, id));
  const cfg = await configValues(
    db,
    runs.map((r) => r.dir),
  );
  const keys = [...new Set(runs.flatMap((r) => Object.keys(cfg.get(r.dir) ?? {})))].sort();
  const differing = keys.filter((k) => new Set(runs.map((r) => cfg.get(r.dir)?.[k] ?? '(unknown)')).size > 1);
  const rows = differing.map((k) => [td(k), ...runs.map((r) => td(cfg.get(r.dir)?.[k] ?? '(unknown)'))]);
  const body = `<h1>Configuration diff</h1><p>${differing.length} of ${keys.length} keys differ (ports and hosts included, as read).</p>
${table(['key', ...runs.map((r) => runLink(r.id))], rows, ' id="diff"')}`;
  return page('Config diff', '/', body);
}
