// The dashboard's page shell: one stylesheet inline (no CDN, no web font: it works offline), the navigation,
// validity badges and small HTML helpers every page uses. Every string from a run goes through esc().

import { escapeHtml as esc } from '../report/escape.js';

export { esc };

/** The navigation bar's own rules: scoped to header.bg-nav, so a page not built here (the HTML report) takes them. */
const NAV_STYLE = `
header.bg-nav{background:#1f2a44;color:#fff;padding:10px 20px;display:flex;gap:22px;align-items:center;font-family:"DejaVu Sans",Arial,Helvetica,sans-serif}
header.bg-nav a{color:#dfe6f5;text-decoration:none;font-size:15px}header.bg-nav a.on{color:#fff;font-weight:bold;border-bottom:2px solid #f2b705}
header.bg-nav .brand{font-weight:bold;font-size:17px;color:#fff;margin-right:12px}
`;

const STYLE = `
body{font-family:"DejaVu Sans",Arial,Helvetica,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}${NAV_STYLE}
main{padding:16px 22px;max-width:1400px}
h1{font-size:21px;margin:6px 0 14px}h2{font-size:17px;margin:20px 0 8px}
table{border-collapse:collapse;background:#fff;font-size:13px}
th,td{border:1px solid #dde1e8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:1px 7px;border-radius:9px;font-size:12px;font-weight:bold;color:#fff}
.valid{background:#2e7d32}.suspect{background:#c77700}.invalid{background:#c62828}
.running{background:#1565c0}.done{background:#2e7d32}.tocome{background:#8a8f98}
form.filters{display:flex;flex-wrap:wrap;gap:10px;align-items:flex-end;margin-bottom:12px}
form.filters label{display:flex;flex-direction:column;font-size:12px;color:#444}
input,select,textarea{font:inherit;font-size:13px;padding:3px}
button{font:inherit;font-size:13px;padding:4px 12px;cursor:pointer}
.note{color:#555;font-size:13px}.error{color:#b00020;font-weight:bold}
.cards{display:flex;flex-direction:column;gap:18px}.card{background:#fff;border:1px solid #dde1e8;padding:12px 16px}
.big{font-size:26px;font-weight:bold}.kpis{display:flex;gap:26px;flex-wrap:wrap;margin:8px 0}
.kpis div{display:flex;flex-direction:column}.kpis span{font-size:12px;color:#555}
.alert{background:#fdecea;border:1px solid #f5c2c0;padding:6px 10px;margin:6px 0}
`;

const NAV: [string, string][] = [
  ['/', 'Runs'],
  ['/history', 'History'],
  ['/pareto', 'Pareto'],
  ['/live', 'Live'],
];

/** The navigation bar with its style, for every page: those built here and the report pages served as they are. */
export function navBar(active: string): string {
  const nav = NAV.map(
    ([href, label]) => `<a href="${href}"${href === active ? ' class="on"' : ''}>${label}</a>`,
  ).join('');
  return `<style>${NAV_STYLE}</style><header class="bg-nav"><span class="brand">benchgate</span>${nav}</header>`;
}

export function page(title: string, active: string, body: string, opts: { script?: string } = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} · benchgate</title><style>${STYLE}</style></head>
<body>${navBar(active)}<main>${body}</main>${opts.script ? `<script>${opts.script}</script>` : ''}</body></html>`;
}

export function badge(validity: string): string {
  const cls = ['valid', 'suspect', 'invalid'].includes(validity) ? validity : 'tocome';
  return `<span class="badge ${cls}">${esc(validity.toUpperCase())}</span>`;
}

export function table(head: readonly string[], rows: readonly string[][], attrs = ''): string {
  return `<table${attrs}><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.join('')}</tr>`)
    .join('')}</tbody></table>`;
}

export const td = (text: string | number | null | undefined, raw = false): string =>
  typeof text === 'number'
    ? `<td class="num">${esc(fmt(text))}</td>`
    : `<td>${text === null || text === undefined ? '—' : raw ? text : esc(text)}</td>`;

export function fmt(v: number | null | undefined, digits?: number): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  if (digits !== undefined) return v.toFixed(digits);
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  const a = Math.abs(v);
  return a >= 100 ? Math.round(v).toLocaleString('en-US') : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

export const runLink = (id: string, text = id) =>
  `<a href="/run?id=${encodeURIComponent(id)}">${esc(text)}</a>`;

export function errorPage(active: string, message: string): string {
  return page('error', active, `<p class="error">${esc(message)}</p>`);
}
