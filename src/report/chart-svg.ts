// Line charts as self-contained SVG strings (no scripts, no external fonts or links), used inline in the
// HTML report and written as .svg/.png files. Readable axes with units, a legend, log2 x for level sweeps.

import { escapeHtml as esc } from './escape.js';
import { formatValue } from './format.js';

export interface ChartPoint {
  x: number;
  y: number;
  /** Excluded from verdicts (client-limited / invalid): drawn hollow. */
  flagged?: boolean;
  /** Tooltip text. */
  note?: string;
}

export interface ChartSeries {
  name: string;
  points: ChartPoint[];
  dashed?: boolean;
  /** Series sharing a colour index draw in the same colour (e.g. p50 and p99 of one run). */
  colorIndex?: number;
}

export interface ChartSpec {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  /** Use a log2 x axis (default: when x spans a factor of 8 or more). */
  logX?: boolean;
  /** Connect points in x order (false for trade-off curves, which connect in level order). */
  sortByX?: boolean;
  /** Linear x axis spanning at least this range (charts of one level share their time axis). */
  xRange?: [number, number];
  width?: number;
  height?: number;
}

export const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  '#F0E442',
];
export const CHART_FONT = 'DejaVu Sans, Arial, Helvetica, sans-serif';

/** Round step sizes (1, 2, 2.5, 5 × 10^k) giving about `count` ticks from lo to hi. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) {
    const v = Number.isFinite(lo) ? lo : 0;
    return v === 0 ? [0, 1] : [Math.min(0, v), Math.max(0, v) * 1.1 || 1];
  }
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = Math.floor(lo / step) * step; t <= hi + step * 1e-9; t += step)
    ticks.push(Number(t.toPrecision(12)));
  if (ticks[ticks.length - 1] < hi) ticks.push(ticks[ticks.length - 1] + step);
  return ticks;
}

/** Tick labels: integers as integers with grouping, others with up to 3 significant digits. */
export function formatTick(t: number): string {
  if (Number.isInteger(t)) return t.toLocaleString('en-US');
  return String(Number(t.toPrecision(3)));
}

interface Frame {
  width: number;
  height: number;
  m: { left: number; right: number; top: number; bottom: number };
  pw: number;
  ph: number;
  /** The title, wrapped to the width. */
  title: string[];
}

/** Pixels between title lines, and the widest character average of bold 16 px DejaVu Sans (≈0.62 em). */
const TITLE_LINE_PX = 19;
const TITLE_CHAR_PX = 10;

/** The title in lines that fit `width` (a long note after a short title wraps instead of overflowing the SVG). */
export function titleLines(title: string, width: number): string[] {
  const max = Math.max(16, Math.floor((width - 24) / TITLE_CHAR_PX));
  const lines: string[] = [];
  let current = '';
  for (const word of title.split(/\s+/).filter(Boolean)) {
    if (current && current.length + 1 + word.length > max) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(current);
  return lines.length ? lines : [''];
}

/** Title and legend: one entry per series, three to a row. */
function headerParts(spec: ChartSpec, f: Frame): string[] {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${f.width}" height="${f.height}" viewBox="0 0 ${f.width} ${f.height}" role="img" aria-labelledby="${esc(spec.id)}-title" font-family="${CHART_FONT}">`,
    `<title id="${esc(spec.id)}-title">${esc(spec.title)}</title>`,
    `<rect x="0" y="0" width="${f.width}" height="${f.height}" fill="#ffffff"/>`,
    ...f.title.map(
      (line, k) =>
        `<text x="${f.width / 2}" y="${22 + k * TITLE_LINE_PX}" text-anchor="middle" font-size="16" font-weight="bold" fill="#111">${esc(line)}</text>`,
    ),
  ];
  const legendTop = 40 + (f.title.length - 1) * TITLE_LINE_PX;
  spec.series.forEach((s, i) => {
    const x = f.m.left + (i % 3) * (f.pw / 3);
    const y = legendTop + Math.floor(i / 3) * 18;
    const color = PALETTE[(s.colorIndex ?? i) % PALETTE.length];
    parts.push(
      `<line x1="${x}" y1="${y}" x2="${x + 22}" y2="${y}" stroke="${color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      `<circle cx="${x + 11}" cy="${y}" r="3.5" fill="${color}"/>`,
      `<text x="${x + 28}" y="${y + 4}" font-size="12" fill="#222">${esc(s.name)}</text>`,
    );
  });
  return parts;
}

interface Scale {
  fx: (x: number) => number;
  fy: (y: number) => number;
  xTicks: number[];
  yTicks: number[];
  logX: boolean;
}

/** Axis ranges and the data-to-pixel maps: log2 x when x spans a factor of 8 (unless told), 0-based y. */
function scaleFor(spec: ChartSpec, pts: readonly ChartPoint[], f: Frame): Scale {
  const xs = [...pts.map((p) => p.x), ...(spec.xRange ?? [])];
  const ys = pts.map((p) => p.y);
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const logX = spec.logX ?? (xMin > 0 && xMax / xMin >= 8);
  const xTicks: number[] = [];
  if (logX)
    for (let e = Math.floor(Math.log2(xMin)); e <= Math.ceil(Math.log2(xMax)); e++) xTicks.push(2 ** e);
  else xTicks.push(...niceTicks(Math.min(0, xMin), xMax));
  const yTicks = niceTicks(Math.min(0, Math.min(...ys)), Math.max(...ys));
  const [x0, x1] = [xTicks[0], xTicks[xTicks.length - 1]];
  const [y0, y1] = [yTicks[0], yTicks[yTicks.length - 1]];
  const fx = (x: number) =>
    f.m.left +
    (logX
      ? (Math.log2(x) - Math.log2(x0)) / (Math.log2(x1) - Math.log2(x0) || 1)
      : (x - x0) / (x1 - x0 || 1)) *
      f.pw;
  const fy = (y: number) => f.m.top + f.ph - ((y - y0) / (y1 - y0 || 1)) * f.ph;
  return { fx, fy, xTicks, yTicks, logX };
}

/** Grid lines, tick labels, the plot frame and the axis titles. */
function axisParts(spec: ChartSpec, f: Frame, sc: Scale): string[] {
  const { m, pw, ph } = f;
  const parts: string[] = [];
  for (const t of sc.yTicks) {
    const y = sc.fy(t).toFixed(1);
    parts.push(
      `<line x1="${m.left}" y1="${y}" x2="${m.left + pw}" y2="${y}" stroke="#e3e3e3"/>`,
      `<text x="${m.left - 8}" y="${Number(y) + 4}" text-anchor="end" font-size="12" fill="#333">${esc(formatTick(t))}</text>`,
    );
  }
  for (const t of sc.xTicks) {
    const x = sc.fx(t).toFixed(1);
    parts.push(
      `<line x1="${x}" y1="${m.top}" x2="${x}" y2="${m.top + ph}" stroke="#f0f0f0"/>`,
      `<text x="${x}" y="${m.top + ph + 18}" text-anchor="middle" font-size="12" fill="#333">${esc(formatTick(t))}</text>`,
    );
  }
  parts.push(
    `<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`,
    `<text x="${m.left + pw / 2}" y="${f.height - 14}" text-anchor="middle" font-size="13" fill="#111">${esc(spec.xLabel)}${sc.logX ? ' (log scale)' : ''}</text>`,
    `<text transform="translate(18 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle" font-size="13" fill="#111">${esc(spec.yLabel)}</text>`,
  );
  return parts;
}

/** Each series' line (in x order, or level order for trade-off curves) and its points (hollow when flagged). */
function seriesParts(spec: ChartSpec, sc: Scale): string[] {
  const parts: string[] = [];
  spec.series.forEach((s, i) => {
    const color = PALETTE[(s.colorIndex ?? i) % PALETTE.length];
    const good = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    const ordered = spec.sortByX === false ? good : [...good].sort((a, b) => a.x - b.x);
    if (ordered.length > 1) {
      const d = ordered
        .map((p, k) => `${k === 0 ? 'M' : 'L'}${sc.fx(p.x).toFixed(1)} ${sc.fy(p.y).toFixed(1)}`)
        .join(' ');
      parts.push(
        `<path d="${d}" fill="none" stroke="${color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`,
      );
    }
    for (const p of ordered) {
      const tip = `${s.name}: ${formatValue(p.y)} at ${formatValue(p.x)}${p.note ? ` (${p.note})` : ''}`;
      parts.push(
        `<circle cx="${sc.fx(p.x).toFixed(1)}" cy="${sc.fy(p.y).toFixed(1)}" r="4" fill="${p.flagged ? '#ffffff' : color}" stroke="${color}" stroke-width="2"><title>${esc(tip)}</title></circle>`,
      );
    }
  });
  return parts;
}

export function renderChartSvg(spec: ChartSpec): string {
  const width = spec.width ?? 760;
  const height = spec.height ?? 420;
  const title = titleLines(spec.title, width);
  const legendRows = Math.ceil(spec.series.length / 3);
  const m = {
    left: 78,
    right: 24,
    top: 44 + (title.length - 1) * TITLE_LINE_PX + legendRows * 18,
    bottom: 58,
  };
  const f: Frame = { width, height, m, pw: width - m.left - m.right, ph: height - m.top - m.bottom, title };
  const pts = spec.series
    .flatMap((s) => s.points)
    .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
  const parts = headerParts(spec, f);
  if (pts.length === 0) {
    parts.push(
      `<text x="${width / 2}" y="${height / 2}" text-anchor="middle" font-size="14" fill="#555">no data</text></svg>`,
    );
    return parts.join('\n');
  }
  const sc = scaleFor(spec, pts, f);
  parts.push(...axisParts(spec, f, sc), ...seriesParts(spec, sc), '</svg>');
  return parts.join('\n');
}
