// SVG -> PNG for the chart files, via resvg (no browser). Fonts: the system's, plus DejaVu when present,
// so chart text renders the same on developer machines and CI (which installs fonts-dejavu-core).

import { existsSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';

const DEJAVU_DIRS = [
  '/usr/share/fonts/truetype/dejavu',
  '/usr/share/fonts/dejavu',
  '/usr/local/share/fonts/dejavu',
];

export function svgToPng(svg: string, opts: { scale?: number } = {}): Buffer {
  const fontDirs = DEJAVU_DIRS.filter((d) => existsSync(d));
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    fitTo: { mode: 'zoom', value: opts.scale ?? 2 },
    font: { loadSystemFonts: true, fontDirs, defaultFontFamily: 'DejaVu Sans' },
  });
  return resvg.render().asPng();
}
