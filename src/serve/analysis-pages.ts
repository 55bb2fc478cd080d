// The dashboard's analysis pages: a comparison of picked runs (the compare engine and the HTML report
// `compare --format html` writes, unchanged), the history of one metric per configuration, and the Pareto
// view of a matrix. Runs are read from their directories; the store says which.

import { benchgateVersion } from '../core/version.js';
import { compareRuns } from '../report/compare.js';
import { isMetricId, METRICS } from '../report/metric-catalog.js';
import { renderHtml } from '../report/render-html.js';
import type { MetricId } from '../report/types.js';
import { readRuns } from '../results/read-run.js';
import type { StoreDb } from '../store/db.js';
import { metricHistory, parseLevel } from '../store/history.js';
import { findRun, type RunListRow } from '../store/run-query.js';
import { historyChartSvg } from './history-chart.js';
import { badge, esc, fmt, navBar, page, runLink, table, td } from './layout.js';
import { absentConfigs, type ParetoPoint, paretoChartSvg, paretoPoints } from './pareto.js';
import { runsFilter } from './runs-page.js';

/**
 * The picked runs compared against the baseline the user chose (`baseline`: a run id), else the oldest:
 * a list picked from the top starts with the newest run, and comparing the past against the present
 * inverts every verdict. Each other run is offered as the baseline by a link.
 */
export async function comparePage(db: StoreDb, ids: readonly string[], baselineId?: string): Promise<string> {
  const runs: RunListRow[] = [];
  for (const id of ids) runs.push(await findRun(db, id, id));
  const chosen = baselineId ? runs.find((r) => r.id === baselineId) : undefined;
  const baseline =
    chosen ?? [...runs].sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''))[0];
  const ordered = baseline ? [baseline, ...runs.filter((r) => r !== baseline)] : runs;
  const loaded = await readRuns(ordered.map((r) => r.dir));
  const cmp = compareRuns(loaded, { iterations: 1000 });
  const html = renderHtml(cmp, { version: benchgateVersion(), generatedAt: new Date().toISOString() });
  const query = ids.map((id) => `run=${encodeURIComponent(id)}`).join('&');
  const choices = runs.map((r) =>
    r === baseline
      ? `<b>${esc(r.id)}</b> (baseline)`
      : `<a href="/compare?${query}&amp;baseline=${encodeURIComponent(r.id)}" title="use as the baseline">${esc(r.id)}</a>`,
  );
  const bar = `<p style="font-family:sans-serif;margin:8px 20px" id="baseline-choice">compared: ${choices.join(' · ')} — click a run to make it the baseline</p>`;
  return html.replace('<body>', `<body>${navBar('/compare')}${bar}`);
}

export interface HistoryQuery {
  metric?: string;
  where?: string;
  level?: string;
  config?: string;
  name?: string;
}

interface ConfigChoice {
  fp: string;
  text: string;
}

/**
 * Configurations (config fingerprints), the most recently run first, each named by its runs and told
 * apart by what differs between same-named entries: engine and version, model, the fingerprint, the span.
 */
async function configChoices(db: StoreDb): Promise<ConfigChoice[]> {
  const rows = await db.all(
    `SELECT config_fingerprint AS fp, string_agg(DISTINCT name, ', ') AS names, count(*) AS n,
       any_value(engine) AS engine, any_value(engine_version) AS version, any_value(model) AS model,
       min(started_at) AS first, max(started_at) AS last FROM runs
     WHERE config_fingerprint IS NOT NULL GROUP BY config_fingerprint ORDER BY max(started_at) DESC`,
  );
  return rows.map((r) => {
    const engine = [r.engine, r.version].filter((x) => x !== null && x !== undefined).join(' ');
    const span = [r.first, r.last].map((t) => String(t ?? '').slice(0, 10));
    const when = span[0] === span[1] ? span[0] : `${span[0]} – ${span[1]}`;
    const parts = [
      String(r.names),
      engine,
      r.model ? String(r.model) : '',
      `config ${String(r.fp)
        .replace(/^sha256:/, '')
        .slice(0, 8)}`,
    ];
    return { fp: String(r.fp), text: `${parts.filter(Boolean).join(' · ')} (${Number(r.n)} runs, ${when})` };
  });
}

function configSelect(choices: readonly ConfigChoice[], chosen: string): string {
  const opts = choices.map(
    (c) => `<option value="${esc(c.fp)}"${c.fp === chosen ? ' selected' : ''}>${esc(c.text)}</option>`,
  );
  return `<label>configuration<select name="config"><option value="">any</option>${opts.join('')}</select></label>`;
}

function historyForm(q: HistoryQuery, metric: MetricId, configs: string): string {
  const options = Object.keys(METRICS)
    .map((m) => `<option${m === metric ? ' selected' : ''}>${m}</option>`)
    .join('');
  return `<form class="filters" method="get" action="/history">
<label>metric<select name="metric">${options}</select></label>
<label>name<input name="name" value="${esc(q.name ?? '')}"></label>
<label>config (KEY=VALUE, comma-separated)<input name="where" value="${esc(q.where ?? '')}" size="40"></label>
<label>level<input name="level" value="${esc(q.level ?? '')}" size="8" placeholder="c=64"></label>
${configs}
<button type="submit">Show</button></form>`;
}

/**
 * One metric over time. With no configuration asked for (no `config` in the query) it shows the most
 * recently run one: every config and level on one chart is a cloud, and one old import squeezes today's
 * points into a stripe. `config=` (empty, "any") shows them all.
 */
export async function historyPage(db: StoreDb, q: HistoryQuery): Promise<string> {
  const metric: MetricId = q.metric && isMetricId(q.metric) ? q.metric : 'output_throughput';
  const choices = await configChoices(db);
  const config = q.config ?? (q.where || q.name ? '' : (choices[0]?.fp ?? ''));
  const filter = {
    ...runsFilter({ where: q.where, name: q.name }),
    configFingerprint: config || undefined,
  };
  const points = await metricHistory(db, {
    metric,
    filter,
    level: q.level ? parseLevel(q.level, 'level') : undefined,
    iterations: 500,
  });
  const rows = points.map((p) => [
    td(p.startedAt?.replace('T', ' ').replace(/\.\d+Z$/, 'Z') ?? null),
    td(runLink(p.runId), true),
    td(p.label),
    td(p.value),
    td(p.ci ? `${fmt(p.ci.low)} – ${fmt(p.ci.high)}` : '—'),
    td(p.n),
    td(badge(p.validity), true),
    td(p.withheld ?? ''),
  ]);
  const spec = METRICS[metric];
  const shown = choices.find((c) => c.fp === config);
  const scope = shown
    ? `<p class="note" id="history-scope">configuration: ${esc(shown.text)} (choose "any" to see every configuration)</p>`
    : '';
  const form = historyForm(q, metric, configSelect(choices, config));
  const body = `<h1>History: ${esc(spec.label)}</h1>${form}${scope}
<div id="chart">${historyChartSvg(metric, points, { href: (p) => `/run?id=${encodeURIComponent(p.runId)}` })}</div>
${table(['started (UTC)', 'run', 'level', `${esc(spec.label)} (${esc(spec.unit)})`, '95% CI', 'n', 'validity', 'note'], rows)}`;
  return page(`History ${spec.label}`, '/history', body);
}

export async function paretoPage(db: StoreDb, matrix: string | undefined): Promise<string> {
  const matrices = (
    await db.all(
      'SELECT matrix_dir, count(*) AS n, min(started_at) AS t FROM runs WHERE matrix_dir IS NOT NULL GROUP BY matrix_dir ORDER BY t DESC',
    )
  ).map((r) => ({ dir: String(r.matrix_dir), n: Number(r.n), t: String(r.t) }));
  const chosen = matrix ?? matrices[0]?.dir;
  const list = matrices
    .map(
      (m) =>
        `<li><a href="/pareto?matrix=${encodeURIComponent(m.dir)}">${esc(m.dir)}</a> (${m.n} configs, ${esc(m.t)})</li>`,
    )
    .join('');
  if (!chosen)
    return page(
      'Pareto',
      '/pareto',
      '<h1>Pareto</h1><p>No matrix run in the store yet (`benchgate run` or `benchgate demo`).</p>',
    );
  const points = await paretoPoints(db, chosen);
  const strike = (p: ParetoPoint, html: string) => (p.validity === 'invalid' ? `<s>${html}</s>` : html);
  const rows = points.map((p) => [
    td(strike(p, runLink(p.runId, p.name)), true),
    td(strike(p, esc(p.label)), true),
    td(p.perUserTokS),
    td(p.perGpuTokS),
    td(p.gpus),
    td(badge(p.validity), true),
    td(
      p.onFrontier
        ? '★ frontier'
        : p.validity === 'invalid'
          ? `off the frontier: ${p.reason ?? 'invalid'}`
          : (p.reason ?? ''),
    ),
  ]);
  const absent = absentConfigs(chosen, points);
  const absentList = absent.length
    ? `<h2>Not on the chart</h2><ul id="absent">${absent.map((a) => `<li><s>${esc(a.name)}</s> (${esc(a.status)}): ${esc(a.reason)}</li>`).join('')}</ul>`
    : '';
  const body = `<h1>Pareto: ${esc(chosen)}</h1>
<div id="chart">${paretoChartSvg(points)}</div>
<p class="note">x: output tokens/s per user (1000 / median TPOT); y: output tokens/s per GPU (level throughput / GPUs of the config). The highlighted line joins the configurations no other beats on both; invalid levels (hollow) never make the frontier. Click a point for its run.</p>
${table(['config', 'level', 'tok/s per user', 'tok/s per GPU', 'GPUs', 'validity', ''], rows, ' id="pareto"')}
${absentList}
<h2>Matrices</h2><ul>${list}</ul>`;
  return page('Pareto', '/pareto', body);
}
