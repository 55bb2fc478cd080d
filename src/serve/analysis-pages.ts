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
import { badge, esc, fmt, page, runLink, table, td } from './layout.js';
import { absentConfigs, type ParetoPoint, paretoChartSvg, paretoPoints } from './pareto.js';
import { runsFilter } from './runs-page.js';

export async function comparePage(db: StoreDb, ids: readonly string[]): Promise<string> {
  const runs: RunListRow[] = [];
  for (const id of ids) runs.push(await findRun(db, id, id));
  const loaded = await readRuns(runs.map((r) => r.dir));
  const cmp = compareRuns(loaded, { iterations: 1000 });
  const html = renderHtml(cmp, { version: benchgateVersion(), generatedAt: new Date().toISOString() });
  const back = `<p style="font-family:sans-serif"><a href="/">← runs</a> · compared: ${runs.map((r) => runLink(r.id)).join(', ')}</p>`;
  return html.replace('<body>', `<body>${back}`);
}

export interface HistoryQuery {
  metric?: string;
  where?: string;
  level?: string;
  config?: string;
  name?: string;
}

/** Configurations (config fingerprints) as choices, each named by the runs that share it. */
async function configChoices(db: StoreDb, chosen: string | undefined): Promise<string> {
  const rows = await db.all(
    `SELECT config_fingerprint AS fp, string_agg(DISTINCT name, ', ') AS names, count(*) AS n FROM runs
     WHERE config_fingerprint IS NOT NULL GROUP BY config_fingerprint ORDER BY max(started_at) DESC`,
  );
  const opts = rows.map(
    (r) =>
      `<option value="${esc(String(r.fp))}"${r.fp === chosen ? ' selected' : ''}>${esc(String(r.names))} (${Number(r.n)} runs)</option>`,
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

export async function historyPage(db: StoreDb, q: HistoryQuery): Promise<string> {
  const metric: MetricId = q.metric && isMetricId(q.metric) ? q.metric : 'output_throughput';
  const filter = {
    ...runsFilter({ where: q.where, name: q.name }),
    configFingerprint: q.config || undefined,
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
  const scope = q.config ? `<p class="note">configuration ${esc(q.config.slice(0, 19))}…</p>` : '';
  const form = historyForm(q, metric, await configChoices(db, q.config));
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
