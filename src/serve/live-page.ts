// The live view: a page whose small inline script (no library, no CDN) listens to /api/live, the
// server-sent events stream of every running run's LiveState, and redraws one card per run: the level
// being measured (requests done, throughput, TTFT and ITL percentiles, errors, ETAs), the levels done and
// to come with their server telemetry and stored validity judgements, failed checks, and a throughput
// sparkline. A percentile reads n/a with its sample count until the samples reach its floor.

import { page } from './layout.js';

const SCRIPT = `
const root = document.getElementById('live');
const status = document.getElementById('status');
const el = (tag, attrs = {}, text) => { const e = document.createElement(tag); for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v); if (text !== undefined) e.textContent = text; return e; };
const f = (v, d) => v === null || v === undefined || !isFinite(v) ? '—' : Number.isInteger(v) && d === undefined ? v.toLocaleString('en-US') : (d !== undefined ? v.toFixed(d) : Math.abs(v) >= 100 ? Math.round(v).toLocaleString('en-US') : v.toFixed(1));
const secs = (s) => s === null ? '—' : s >= 90 ? Math.round(s / 60) + ' min' : Math.round(s) + ' s';
const tail = (v, n) => v === null && n > 0 ? 'n/a (' + n + ' samples)' : f(v);
function kpi(card, name, label, value) { const d = el('div', { 'data-kpi': name }); d.append(el('span', {}, label), el('b', { class: 'big' }, value)); card.append(d); }
function spark(points) {
  const ns = 'http://www.w3.org/2000/svg', w = 520, h = 90, svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', w); svg.setAttribute('height', h); svg.setAttribute('data-chart', 'throughput');
  if (points.length < 2) return svg;
  const xs = points.map(p => p[0]), ys = points.map(p => p[1]), xm = Math.max(...xs) || 1, ym = Math.max(...ys) || 1;
  const path = document.createElementNS(ns, 'polyline');
  path.setAttribute('points', points.map(p => (4 + p[0] / xm * (w - 8)).toFixed(1) + ',' + (h - 4 - p[1] / ym * (h - 8)).toFixed(1)).join(' '));
  path.setAttribute('fill', 'none'); path.setAttribute('stroke', '#1565c0'); path.setAttribute('stroke-width', '2');
  svg.append(path); return svg;
}
function card(s) {
  const c = el('div', { class: 'card', 'data-dir': s.dir });
  const cur = s.current === null ? null : s.levels[s.current];
  const head = el('h2', {}, s.name + ' ');
  head.append(el('span', { class: 'badge ' + (s.finished ? 'done' : 'running') }, s.finished ? 'FINISHED' : cur ? 'RUNNING level ' + (s.current + 1) + '/' + s.levels.length + ' ' + cur.label : 'STARTING'));
  c.append(head, el('p', { class: 'note' }, s.dir + (s.idleS > 30 && !s.finished ? ' — no new file for ' + secs(s.idleS) : '')));
  for (const t of s.failedChecks) c.append(el('div', { class: 'alert', 'data-alert': 'check' }, 'failed check: ' + t));
  for (const t of s.drift) c.append(el('div', { class: 'alert', 'data-alert': 'drift' }, 'drift / invalid level: ' + t));
  for (const m of (s.matrix || []).filter(m => m.failure)) c.append(el('div', { class: 'alert', 'data-alert': 'config' }, 'config ' + m.name + ' ' + m.status + ': ' + m.failure));
  const k = el('div', { class: 'kpis' }); const fig = cur && cur.figures;
  kpi(k, 'done', 'requests done', fig ? fig.done + (cur.total ? ' / ' + cur.total : '') : '0');
  kpi(k, 'throughput', 'output tok/s', f(fig && fig.outputTokensPerS));
  kpi(k, 'ttft', 'TTFT p50 / p99 (ms)', f(fig && fig.ttftP50Ms) + ' / ' + (fig ? tail(fig.ttftP99Ms, fig.ttftSamples) : '—'));
  kpi(k, 'itl', 'ITL p50 / p99 (ms)', f(fig && fig.itlP50Ms, 2) + ' / ' + (fig ? (fig.itlP99Ms === null && fig.itlSamples > 0 ? 'n/a (' + fig.itlSamples + ' samples)' : f(fig.itlP99Ms, 2)) : '—'));
  kpi(k, 'errors', 'errors', fig ? String(fig.errors) + (fig.errors ? ' (' + Object.entries(fig.errorsByCode).map(e => e[0] + '×' + e[1]).join(' ') + ')' : '') : '0');
  kpi(k, 'eta', 'ETA level / run', secs(s.levelEtaS) + ' / ' + secs(s.runEtaS));
  c.append(k, el('p', { class: 'note' }, 'output tokens per second of the running level, as requests complete'), spark(s.throughput));
  const t = el('table', { 'data-table': 'levels' }); const hr = el('tr');
  for (const h of ['level', 'status', 'done', 'out tok/s', 'TTFT p50', 'TTFT p99', 'ITL p50', 'errors', 'running', 'waiting', 'KV max', 'accept len', 'validity']) hr.append(el('th', {}, h));
  t.append(hr);
  for (const l of s.levels) {
    const r = el('tr', { 'data-level': String(l.index), 'data-status': l.status }); const g = l.figures || {}; const tm = l.telemetry || {};
    const st = el('td'); st.append(el('span', { class: 'badge ' + l.status.replace(' ', '') }, l.status));
    r.append(el('td', {}, l.label), st);
    for (const v of [g.done, g.outputTokensPerS, g.ttftP50Ms]) r.append(el('td', { class: 'num' }, f(v)));
    r.append(el('td', { class: 'num' }, tail(g.ttftP99Ms ?? null, g.ttftSamples || 0)));
    for (const v of [g.itlP50Ms, g.errors, tm.running, tm.waiting, tm.kvCacheMax, tm.acceptLength]) r.append(el('td', { class: 'num' }, f(v)));
    r.append(el('td', { 'data-validity': l.validity ? l.validity.status : '' }, l.validity ? (l.validity.status === 'valid' ? 'valid' : l.validity.status.toUpperCase() + ': ' + l.validity.reasons.join(' ')) : ''));
    t.append(r);
  }
  c.append(t); return c;
}
const source = new EventSource('/api/live');
source.addEventListener('state', (ev) => {
  const { runs, at } = JSON.parse(ev.data);
  status.textContent = runs.length ? 'updated ' + new Date(at).toISOString().slice(11, 19) + 'Z' : 'no run in progress; waiting for one (a run appears when its manifest is written)';
  root.replaceChildren(...runs.map(card));
});
source.onerror = () => { status.textContent = 'connection lost; retrying'; };
`;

export function livePage(): string {
  const body = `<h1>Live</h1><p class="note" id="status">connecting…</p><div class="cards" id="live"></div>
<p class="note">Drift verdicts of a level appear when the level ends and its files are written; the level being measured is read from requests.jsonl as each request completes and from the server telemetry as it is scraped.</p>`;
  return page('Live', '/live', body, { script: SCRIPT });
}
