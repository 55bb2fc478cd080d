import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAzure, parseMooncake, readTrace, replayOffsetsMs, tracePrompts } from './trace.js';

describe('trace readers', () => {
  it('read Mooncake JSONL, sorted by arrival, offsets relative to the first request', () => {
    const t = parseMooncake(
      [
        '{"timestamp": 2500, "input_length": 1100, "output_length": 20, "hash_ids": [0, 1, 7]}',
        '',
        '{"timestamp": 1000, "input_length": 600, "output_length": 10, "hash_ids": [0, 2]}',
      ].join('\n'),
      'm.jsonl',
    );
    expect(t).toEqual([
      { offsetMs: 0, inputTokens: 600, outputTokens: 10, hashIds: [0, 2] },
      { offsetMs: 1500, inputTokens: 1100, outputTokens: 20, hashIds: [0, 1, 7] },
    ]);
    expect(replayOffsetsMs(t, 2)).toEqual([0, 750]);
  });

  it('read Azure CSV timestamps with 7 fraction digits', () => {
    const t = parseAzure(
      'TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.1805900,396,109\n',
      'a.csv',
    );
    expect(t.map((e) => [Math.round(e.offsetMs), e.inputTokens, e.outputTokens])).toEqual([
      [0, 374, 44],
      [3500, 396, 109],
    ]);
  });

  it('fail closed naming file and line', async () => {
    expect(() => parseMooncake('{"timestamp": 1, "input_length": 5}\n', 'x.jsonl')).toThrow(/x\.jsonl:1 /);
    expect(() =>
      parseMooncake('{"timestamp": 1, "input_length": 5, "output_length": 1}\nnope', 'x.jsonl'),
    ).toThrow(/x\.jsonl:2 is not a JSON object line/);
    expect(() => parseAzure('TIMESTAMP,ContextTokens\n', 'a.csv')).toThrow(/a\.csv:1 needs the header/);
    expect(() => parseAzure('TIMESTAMP,ContextTokens,GeneratedTokens\nyesterday,1,2', 'a.csv')).toThrow(
      /a\.csv:2 /,
    );
    expect(() => parseMooncake('\n\n', 'e.jsonl')).toThrow(/holds no requests/);
    await expect(readTrace('/nonexistent/t.csv')).rejects.toThrow(/cannot read/);
  });

  it('picks the reader by extension', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bg-trace-'));
    const f = join(dir, 't.csv');
    writeFileSync(f, 'ContextTokens,GeneratedTokens,TIMESTAMP\n10,2,2024-05-10 00:00:00\n');
    expect(await readTrace(f)).toEqual([{ offsetMs: 0, inputTokens: 10, outputTokens: 2, hashIds: [] }]);
  });

  it('turn equal hash ids into equal prompt prefixes, reproducibly', () => {
    const entries = [
      { offsetMs: 0, inputTokens: 10, outputTokens: 1, hashIds: [4, 5, 6] },
      { offsetMs: 1, inputTokens: 9, outputTokens: 1, hashIds: [4, 9] },
    ];
    const [a, b] = tracePrompts(entries, 4, 1);
    const wa = a.prompt.split(' ');
    const wb = b.prompt.split(' ');
    expect(wa).toHaveLength(10);
    expect(wb).toHaveLength(9);
    expect(wa.slice(0, 4)).toEqual(wb.slice(0, 4));
    expect(wa.slice(4, 8)).not.toEqual(wb.slice(4, 8));
    expect(tracePrompts(entries, 4, 1)).toEqual([a, b]);
    // another level or run (another salt): the same sharing, other words, so no block is cached before
    const [c, d] = tracePrompts(entries, 4, 1, 77);
    expect(c.prompt.split(' ').slice(0, 4)).toEqual(d.prompt.split(' ').slice(0, 4));
    expect(c.prompt.split(' ').slice(0, 4)).not.toEqual(wa.slice(0, 4));
    expect(c.prompt.split(' ')).toHaveLength(10);
  });
});
