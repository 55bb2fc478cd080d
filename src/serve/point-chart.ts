// Points charts as self-contained SVG (no script, no external asset), in the report's look (its palette,
// font, tick rules): a metric over time with interval bars (history), and a scatter with a highlighted
// frontier whose points link to their runs (Pareto). Invalid points are drawn hollow, as in the report.

import { CHART_FONT, formatTick, niceTicks, PALETTE } from '../report/chart-svg.js';
import { escapeHtml as esc } from '../report/escape.js';
import { formatValue } from '../report/format.js';

export interface PlotPoint {
  x: number;
  y: number;
  /** Interval bar from low to high (drawn when both are given). */
  low?: number | null;
  high?: number | null;
  hollow?: boolean;
  /** Drawn with a highlight ring (a point on the Pareto frontier). */
  ring?: boolean;
  /** Link target of the point (the dashboard's run page). */
  href?: string;
  note: string;
  /** A short label drawn beside the point (a Pareto point's level, "c=8"). */
  label?: string;
}

export interface PlotSeries {
  name: string;
  points: PlotPoint[];
  /** Join the points in x order with a line. */
  line?: boolean;
}

export interface PointChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  /** `time`: x is epoch ms, ticks read as dates or times. */
  xKind: 'time' | 'linear';
  series: PlotSeries[];
  /** Points joined by a thick highlighted line (the Pareto frontier), in the order given. */
  frontier?: { x: number; y: number }[];
  width?: number;
  height?: number;
}

/** Date ticks: times of day within one day, month-day and time within a year, the year too across years. */
export function timeTicks(lo: number, hi: number): { at: number[]; label: (t: number) => string } {
  const span = Math.max(hi - lo, 60_000);
  const at = niceTicks(lo, lo + span, 5).filter((t) => t >= lo - span * 0.05 && t <= lo + span * 1.05);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  const sameDay = day(lo) === day(lo + span);
  const sameYear = day(lo).slice(0, 4) === day(lo + span).slice(0, 4);
  const label = (t: number) => {
    const iso = new Date(t).toISOString();
    if (sameDay) return `${iso.slice(11, 16)}Z`;
    return sameYear ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
  };
  return { at: at.length >= 2 ? at : [lo, lo + span], label };
}

function extent(values: number[], pad: number): [number, number] {
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const span = hi - lo || Math.abs(hi) || 1;
  return [lo - span * pad, hi + span * pad];
}

interface Frame {
  width: number;
  height: number;
  m: { left: number; right: number; top: number; bottom: number };
  pw: number;
  ph: number;
}

/** The SVG head: title, background, heading and the legend (one dot per series, three per row). */
function headSvg(spec: PointChartSpec, f: Frame): string[] {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" role="img" aria-labelledby="${esc(spec.id)}-title" font-family="${CHART_FONT}" data-chart="${esc(spec.id)}">`,
    `<title id="${esc(spec.id)}-title">${esc(spec.title)}</title>`,
    `<rect x="0" y="0" width="${f.width}" height="${f.height}" fill="#ffffff"/>`,
    `<text x="${f.width / 2}" y="22" text-anchor="middle" font-size="16" font-weight="bold" fill="#111">${esc(spec.title)}</text>`,
  ];
  spec.series.forEach((s, i) => {
    const x = f.m.left + (i % 3) * (f.pw / 3);
    const y = 40 + Math.floor(i / 3) * 18;
    out.push(
      `<circle cx="${x + 8}" cy="${y}" r="4.5" fill="${PALETTE[i % PALETTE.length]}"/>`,
      `<text x="${x + 18}" y="${y + 4}" font-size="12" fill="#222">${esc(s.name)}</text>`,
    );
  });
  return out;
}

interface Axes {
  fx: (x: number) => number;
  fy: (y: number) => number;
  svg: string[];
}

/** Scales, grid, tick labels and axis titles for the points given. */
function axesSvg(spec: PointChartSpec, f: Frame, all: PlotPoint[]): Axes {
  const { m, pw, ph } = f;
  const ys = all.flatMap((p) => [p.y, p.low ?? p.y, p.high ?? p.y]).filter(Number.isFinite);
  const yTicks = niceTicks(Math.min(0, ...ys), Math.max(...ys));
  const [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]];
  const xs = all.map((p) => p.x);
  const [xLo, xHi] = spec.xKind === 'time' ? extent(xs, 0.04) : [0, Math.max(...xs)];
  const xt = spec.xKind === 'time' ? timeTicks(xLo, xHi) : { at: niceTicks(0, xHi), label: formatTick };
  const [x0, x1] = [Math.min(xt.at[0], xLo), Math.max(xt.at[xt.at.length - 1], xHi)];
  const fx = (x: number) => m.left + ((x - x0) / (x1 - x0 || 1)) * pw;
  const fy = (y: number) => m.top + ph - ((y - y0) / (y1 - y0 || 1)) * ph;
  const svg: string[] = [];
  for (const t of yTicks)
    svg.push(
      `<line x1="${m.left}" y1="${fy(t).toFixed(1)}" x2="${m.left + pw}" y2="${fy(t).toFixed(1)}" stroke="#e3e3e3"/>`,
      `<text x="${m.left - 8}" y="${(fy(t) + 4).toFixed(1)}" text-anchor="end" font-size="12" fill="#333">${esc(formatTick(t))}</text>`,
    );
  for (const t of xt.at.filter((v) => v >= x0 && v <= x1))
    svg.push(
      `<line x1="${fx(t).toFixed(1)}" y1="${m.top}" x2="${fx(t).toFixed(1)}" y2="${m.top + ph}" stroke="#f0f0f0"/>`,
      `<text x="${fx(t).toFixed(1)}" y="${m.top + ph + 18}" text-anchor="middle" font-size="12" fill="#333">${esc(xt.label(t))}</text>`,
    );
  svg.push(
    `<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`,
    `<text x="${m.left + pw / 2}" y="${f.height - 14}" text-anchor="middle" font-size="13" fill="#111">${esc(spec.xLabel)}</text>`,
    `<text transform="translate(18 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle" font-size="13" fill="#111">${esc(spec.yLabel)}</text>`,
  );
  return { fx, fy, svg };
}

export function renderPointChart(spec: PointChartSpec): string {
  const width = spec.width ?? 760;
  const height = spec.height ?? 420;
  const m = { left: 78, right: 24, top: 44 + Math.ceil(spec.series.length / 3) * 18, bottom: 58 };
  const f: Frame = { width, height, m, pw: width - m.left - m.right, ph: height - m.top - m.bottom };
  const all = spec.series
    .flatMap((s) => s.points)
    .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const out = headSvg(spec, f);
  if (all.length === 0) {
    out.push(
      `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" font-size="14" fill="#555">no data</text></svg>`,
    );
    return out.join('\n');
  }
  const { fx, fy, svg } = axesSvg(spec, f, all);
  out.push(...svg);
  if (spec.frontier && spec.frontier.length > 0) {
    const d = spec.frontier
      .map((p, k) => `${k ? 'L' : 'M'}${fx(p.x).toFixed(1)} ${fy(p.y).toFixed(1)}`)
      .join(' ');
    out.push(
      `<path class="frontier" d="${d}" fill="none" stroke="#f2b705" stroke-width="9" stroke-linejoin="round" stroke-linecap="round" opacity="0.55"/>`,
    );
  }
  spec.series.forEach((s, i) => {
    out.push(...seriesSvg(s, PALETTE[i % PALETTE.length], fx, fy));
  });
  out.push('</svg>');
  return out.join('\n');
}

function seriesSvg(
  s: PlotSeries,
  color: string,
  fx: (x: number) => number,
  fy: (y: number) => number,
): string[] {
  const pts = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
  const out: string[] = [];
  if (s.line && pts.length > 1)
    out.push(
      `<path d="${pts.map((p, k) => `${k ? 'L' : 'M'}${fx(p.x).toFixed(1)} ${fy(p.y).toFixed(1)}`).join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>`,
    );
  for (const p of pts) {
    const cx = fx(p.x).toFixed(1);
    if (p.low != null && p.high != null && Number.isFinite(p.low) && Number.isFinite(p.high))
      out.push(
        `<line class="interval" x1="${cx}" y1="${fy(p.low).toFixed(1)}" x2="${cx}" y2="${fy(p.high).toFixed(1)}" stroke="${color}" stroke-width="1.5"/>`,
      );
    if (p.ring)
      out.push(
        `<circle class="frontier-point" cx="${cx}" cy="${fy(p.y).toFixed(1)}" r="10" fill="none" stroke="#f2b705" stroke-width="3"/>`,
      );
    const tip = `${s.name}: ${formatValue(p.y)} (${p.note})`;
    const dot = `<circle cx="${cx}" cy="${fy(p.y).toFixed(1)}" r="5" fill="${p.hollow ? '#ffffff' : color}" stroke="${color}" stroke-width="2"><title>${esc(tip)}</title></circle>`;
    out.push(p.href ? `<a href="${esc(p.href)}" xlink:href="${esc(p.href)}">${dot}</a>` : dot);
    if (p.label)
      out.push(
        `<text class="point-label" x="${(Number(cx) + 7).toFixed(1)}" y="${(fy(p.y) - 7).toFixed(1)}" font-size="11" fill="#333">${esc(p.label)}</text>`,
      );
  }
  return out;
}
