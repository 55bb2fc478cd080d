import { describe, expect, it } from 'vitest';
import { parsePrometheusText, parsePromNumber, sumMetric } from './prometheus.js';

const TEXT = `# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 1.2e+03
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 300
vllm:spec_decode_num_drafts_created{engine="0",model_name="m"} 1.7e9
vllm_gauge_odd{label="with \\"quote\\", comma",x="y"} +Inf 1712345678000
broken line without value
vllm:nan_metric NaN
`;

describe('parsePrometheusText', () => {
  it('reads samples with labels, exponent numbers, +Inf, NaN and timestamps, skipping bad lines', () => {
    const s = parsePrometheusText(TEXT);
    expect(s.types['vllm:spec_decode_num_drafts_total']).toBe('counter');
    expect(s.samples).toHaveLength(5);
    expect(s.samples[0]).toEqual({
      name: 'vllm:spec_decode_num_drafts_total',
      labels: { engine: '0', model_name: 'm' },
      value: 1200,
    });
    expect(s.samples[3].labels.label).toBe('with "quote", comma');
    expect(s.samples[3].value).toBe(Infinity);
    expect(Number.isNaN(s.samples[4].value)).toBe(true);
  });

  it('sums a counter over label sets and accepts colon or underscore prefixes and _total variants', () => {
    const s = parsePrometheusText(TEXT);
    expect(sumMetric(s, 'vllm', 'spec_decode_num_drafts_total')).toBe(1500);
    expect(sumMetric(s, 'vllm', 'spec_decode_num_drafts')).toBe(1500);
    const underscored = parsePrometheusText(
      'sglang_generation_tokens_total 5\nsglang_generation_tokens_total{a="b"} 7',
    );
    expect(sumMetric(underscored, 'sglang', 'generation_tokens_total')).toBe(12);
    expect(sumMetric(s, 'vllm', 'absent_total')).toBeUndefined();
  });

  it('parses number spellings and rejects non-numbers', () => {
    expect(parsePromNumber('-Inf')).toBe(-Infinity);
    expect(parsePromNumber('3.5E-2')).toBe(0.035);
    expect(parsePromNumber('abc')).toBeNull();
  });
});
