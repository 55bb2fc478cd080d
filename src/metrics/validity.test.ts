import { describe, expect, it } from 'vitest';
import type { RequestRecord } from '../records/request-record.js';
import { buildRecords, specs, summarizeForTest } from '../report/test-support.js';
import type { LevelSummary } from './summary.js';
import { judgeLevel } from './validity.js';

const key = { kind: 'concurrency', value: 4 } as const;

function level(
  n: number,
  edit: (r: RequestRecord, i: number) => void = () => {},
  extra: Partial<LevelSummary> = {},
) {
  const records = buildRecords(0, 4, specs(n, { e2eMs: 100, ttftMs: 10, tokens: 64 }));
  records.forEach(edit);
  return { records, summary: summarizeForTest(0, key, records, extra) };
}

describe('level validity', () => {
  it('calls a clean level valid and notes the percentiles its sample count cannot support', () => {
    const { records, summary } = level(100);
    const v = judgeLevel(summary, records);
    expect(v.status).toBe('valid');
    expect(v.reasons.map((r) => r.text).join(' ')).toContain('p99 (≥662 needed)');
  });

  it('marks ignore_eos not honoured invalid, with requested vs received lengths', () => {
    const { records, summary } = level(100, (r, i) => {
      if (i % 5 === 0) r.outputTokensServer = 20;
      r.requestedOutputTokens = 64;
    });
    const v = judgeLevel(summary, records, { ignoreEos: true });
    expect(v.status).toBe('invalid');
    expect(v.reasons.find((r) => r.check === 'output-length')?.text).toBe(
      'ignore_eos not honoured: 20 of 100 requests (20%) got fewer output tokens than requested (median 20 of 64).',
    );
    expect(judgeLevel(summary, records).status).toBe('suspect');
  });

  it('shows the chat template prompt-length delta (server 102 for a requested 100) as a note', () => {
    const { records, summary } = level(20, (r) => {
      r.inputTokensClient = 100;
      r.inputTokensServer = 102;
    });
    const v = judgeLevel(summary, records);
    expect(v.reasons.find((r) => r.check === 'prompt-tokens')?.text).toBe(
      'Prompt length: the server counts 102 prompt tokens for a requested 100 (+2, e.g. the chat template) in 20 of 20 requests.',
    );
  });

  it('allows the chat template its few tokens per message of a multi-turn history', () => {
    const turn = (t: number, delta: number) =>
      level(20, (r) => {
        r.turn = t;
        r.inputTokensClient = 200;
        r.inputTokensServer = 200 + delta;
      });
    const tenth = turn(10, 4 * 19 + 1);
    expect(
      judgeLevel(tenth.summary, tenth.records).reasons.find((r) => r.check === 'prompt-tokens')?.severity,
    ).toBe('note');
    const first = turn(1, 4 * 19 + 1);
    expect(
      judgeLevel(first.summary, first.records).reasons.find((r) => r.check === 'prompt-tokens')?.severity,
    ).toBe('suspect');
  });

  it('makes errors suspect, a high error rate, restarts and a client-limited level invalid', () => {
    const few = level(100, () => {}, {
      requests: { completed: 99, failed: 1, warmup: 0, inFlightAtEnd: 0 },
      errorsByCode: { BG_E_HTTP_STATUS: 1 },
    });
    expect(judgeLevel(few.summary, few.records).status).toBe('suspect');
    const many = level(100, () => {}, {
      requests: { completed: 90, failed: 10, warmup: 0, inFlightAtEnd: 0 },
    });
    expect(judgeLevel(many.summary, many.records).status).toBe('invalid');
    const restarted = level(100, () => {}, {
      validity: { valid: false, reasons: ['server restarted during the level (start time changed)'] },
    });
    expect(judgeLevel(restarted.summary, restarted.records).reasons[0].text).toContain('server restarted');
    const limited = level(100, () => {}, {
      client: {
        eventLoopDelayP99Ms: 80,
        cpuPercentOfOneCore: 99,
        clientLimited: true,
        reason: 'loop lag 80 ms',
      },
    });
    expect(judgeLevel(limited.summary, limited.records).status).toBe('invalid');
  });

  it('flags speculative decoding configured with a mean acceptance of about 1', () => {
    const { records, summary } = level(100, () => {}, {
      speculative: { acceptanceLength: 1.0, source: 'per-request' },
    });
    const v = judgeLevel(summary, records, { speculativeConfigured: true });
    expect(v.status).toBe('suspect');
    expect(v.reasons.find((r) => r.check === 'acceptance')?.text).toContain('1.00 tokens per step');
  });

  it('shows server/client output-count disagreements with an example', () => {
    const { records, summary } = level(
      100,
      (r, i) => {
        if (i < 3) r.outputTokensClient = 63;
      },
      {},
    );
    summary.tokenReconciliation.outputMismatches = 3;
    expect(judgeLevel(summary, records).reasons.find((r) => r.check === 'output-tokens')?.text).toBe(
      "Server and client output token counts disagree in 3 of 100 requests (e.g. server 64, client 63); metrics use the server's count.",
    );
  });
});
