import { describe, expect, it } from 'vitest';
import { type ChartSpec, renderChartSvg } from './chart-svg.js';
import { svgToPng } from './png.js';
import { darkPixels, decodePng } from './png-decode.js';

const base: ChartSpec = {
  id: 'c',
  title: 'Output throughput vs load',
  xLabel: 'Concurrency (requests in flight)',
  yLabel: 'Output tokens/s',
  width: 600,
  height: 360,
  series: [{ name: 'baseline', points: [1, 2, 4, 8].map((x) => ({ x, y: 100 * x })) }],
};

describe('svgToPng', () => {
  it('renders the axis label text as real pixels', () => {
    const withLabel = decodePng(svgToPng(renderChartSvg(base), { scale: 1 }));
    const without = decodePng(svgToPng(renderChartSvg({ ...base, xLabel: '' }), { scale: 1 }));
    expect(withLabel.width).toBe(600);
    // the x-axis label sits centred in the bottom 30 px
    const region = [150, 360 - 30, 450, 360] as const;
    const inked = darkPixels(withLabel, ...region);
    const blank = darkPixels(without, ...region);
    expect(inked).toBeGreaterThan(200);
    // "(log scale)" remains when the label is empty, so compare: the label adds a lot of ink
    expect(inked).toBeGreaterThan(blank * 2);
  });

  it('produces a different image when only the legend text differs', () => {
    const a = svgToPng(renderChartSvg(base), { scale: 1 });
    const b = svgToPng(renderChartSvg({ ...base, series: [{ ...base.series[0], name: 'eagle3' }] }), {
      scale: 1,
    });
    expect(Buffer.compare(a, b)).not.toBe(0);
    const imgA = decodePng(a);
    const imgB = decodePng(b);
    // legend row: the two names differ in ink
    expect(darkPixels(imgA, 100, 30, 300, 50)).not.toBe(darkPixels(imgB, 100, 30, 300, 50));
  });

  it('scales the image for crisp pasting', () => {
    const img = decodePng(svgToPng(renderChartSvg(base)));
    expect(img.width).toBe(1200);
    expect(img.height).toBe(720);
  });
});
