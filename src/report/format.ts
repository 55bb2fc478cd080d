// Number formatting shared by every renderer, so a value reads the same in text, Markdown, HTML and verdicts.

/** Three significant digits for values, grouped thousands, no exponent. */
export function formatValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  const abs = Math.abs(v);
  if (abs >= 1000) return Math.round(v).toLocaleString('en-US');
  if (abs >= 100) return v.toFixed(0);
  if (abs >= 10) return v.toFixed(1);
  if (abs >= 1) return v.toFixed(2);
  return v.toPrecision(3);
}

/** A ratio as a signed percentage change: 0.77 -> "-23%", 1.052 -> "+5.2%". */
export function formatChange(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '—';
  const p = (ratio - 1) * 100;
  const digits = Math.abs(p) >= 10 ? 0 : 1;
  const s = p.toFixed(digits);
  if (Number(s) === 0) return '±0%';
  return `${p > 0 ? '+' : ''}${s}%`;
}

export function formatCi(ci: { low: number; high: number } | null | undefined): string {
  if (!ci) return 'no CI';
  return `CI ${formatChange(ci.low)} to ${formatChange(ci.high)}`;
}

/** A fraction as a plain percentage: 0.02 -> "2%", 0.025 -> "2.5%". */
export function formatPercent(fraction: number): string {
  return `${Number((fraction * 100).toFixed(2))}%`;
}

/** A metric's label with its unit in brackets, unless the label already says it ("Output tok/s", not "Output tok/s (tok/s)"). */
export function labelWithUnit(label: string, unit: string | null | undefined): string {
  if (!unit || label.toLowerCase().includes(unit.toLowerCase())) return label;
  return `${label} (${unit})`;
}
