// What a compare/report produces for a format: the text for stdout and the files for --out
// (the rendered document plus every chart as SVG and PNG). Pure: the CLI writes them.

import { renderChartSvg } from './chart-svg.js';
import { chartSpecs } from './charts.js';
import { svgToPng } from './png.js';
import { renderCsv } from './render-csv.js';
import { type HtmlOptions, renderHtml } from './render-html.js';
import { renderJson } from './render-json.js';
import { renderMarkdown } from './render-markdown.js';
import { renderText } from './render-text.js';
import type { Comparison } from './types.js';

export const FORMATS = ['text', 'markdown', 'json', 'csv', 'html'] as const;
export type ReportFormat = (typeof FORMATS)[number];

export interface Artifact {
  /** Path relative to the --out directory. */
  name: string;
  data: string | Buffer;
}

export function renderFormat(
  cmp: Comparison,
  format: ReportFormat,
  opts: { color: boolean; html?: HtmlOptions },
): string {
  switch (format) {
    case 'text':
      return renderText(cmp, { color: opts.color });
    case 'markdown':
      return renderMarkdown(cmp);
    case 'json':
      return renderJson(cmp);
    case 'csv':
      return renderCsv(cmp);
    case 'html':
      return renderHtml(cmp, opts.html);
  }
}

const FILE_NAMES: Record<ReportFormat, string> = {
  text: 'compare.txt',
  markdown: 'compare.md',
  json: 'compare.json',
  csv: 'compare.csv',
  html: 'report.html',
};

/**
 * Files for --out: the document in the chosen format, report.html, compare.json, and charts/<id>.svg|png.
 * `fontDirs`: extra font directories for the PNGs (the caller finds them: results/write-artifacts.ts).
 */
export function reportArtifacts(
  cmp: Comparison,
  format: ReportFormat,
  opts: { html?: HtmlOptions; png?: boolean; fontDirs?: readonly string[] } = {},
): Artifact[] {
  const files: Artifact[] = [];
  const add = (f: ReportFormat) => {
    if (!files.some((x) => x.name === FILE_NAMES[f]))
      files.push({ name: FILE_NAMES[f], data: renderFormat(cmp, f, { color: false, html: opts.html }) });
  };
  add(format);
  add('html');
  add('json');
  for (const spec of chartSpecs(cmp)) {
    const svg = renderChartSvg(spec);
    files.push({ name: `charts/${spec.id}.svg`, data: svg });
    if (opts.png !== false)
      files.push({ name: `charts/${spec.id}.png`, data: svgToPng(svg, { fontDirs: opts.fontDirs }) });
  }
  return files;
}
