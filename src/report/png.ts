// SVG -> PNG for the chart files, via resvg (no browser). Fonts: the system's, plus the font directories
// the caller found (src/results/write-artifacts.ts chartFontDirs: DejaVu when present), so chart text
// renders the same on developer machines and CI. Which directories exist is the caller's question:
// report/ does no I/O of its own.

import { Resvg } from '@resvg/resvg-js';

export interface PngOptions {
  /** Extra font directories, already known to exist. */
  fontDirs?: readonly string[];
  scale?: number;
}

export function svgToPng(svg: string, opts: PngOptions = {}): Buffer {
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    fitTo: { mode: 'zoom', value: opts.scale ?? 2 },
    font: { loadSystemFonts: true, fontDirs: [...(opts.fontDirs ?? [])], defaultFontFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}
