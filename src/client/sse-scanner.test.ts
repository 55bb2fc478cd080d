import { describe, expect, it } from 'vitest';
import { SseScanner } from './sse-scanner.js';

function scanInSlices(text: string, sliceBytes: number): string[] {
  const events: string[] = [];
  const s = new SseScanner((d) => events.push(d));
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += sliceBytes) s.feed(bytes, i, Math.min(bytes.length, i + sliceBytes));
  s.flush();
  return events;
}

describe('SseScanner', () => {
  const stream =
    'data: {"text":"héllo wörld ✓"}\r\n\r\n: comment\nevent: x\ndata: line1\ndata:line2\n\ndata: [DONE]\n\n';
  const expected = ['{"text":"héllo wörld ✓"}', 'line1\nline2', '[DONE]'];

  it('yields the same events for every slice size, never cutting a multi-byte character', () => {
    for (const n of [1, 2, 3, 5, 7, 64, 4096]) expect(scanInSlices(stream, n)).toEqual(expected);
  });

  it('dispatches a last event that lacks its blank line or final newline at flush', () => {
    expect(scanInSlices('data: a\n\ndata: b', 3)).toEqual(['a', 'b']);
  });

  it('stops dispatching once stopped', () => {
    const events: string[] = [];
    const s = new SseScanner((d) => {
      events.push(d);
      s.stopped = true;
    });
    const b = Buffer.from('data: 1\n\ndata: 2\n\n');
    s.feed(b, 0, b.length);
    s.flush();
    expect(events).toEqual(['1']);
  });

  it('stops at an event over the cap, whether one long line or many data lines, keeping earlier events', () => {
    for (const big of [`data: ${'x'.repeat(5000)}\n\n`, `${'data: 0123456789\n'.repeat(400)}\n`]) {
      for (const n of [7, 512, 100_000]) {
        const events: string[] = [];
        const oversized: number[] = [];
        const s = new SseScanner(
          (d) => events.push(d),
          1024,
          (b) => oversized.push(b),
        );
        const bytes = Buffer.from(`data: first\n\n${big}data: after\n\n`, 'utf8');
        for (let i = 0; i < bytes.length; i += n) s.feed(bytes, i, Math.min(bytes.length, i + n));
        s.flush();
        expect(events).toEqual(['first']);
        expect(oversized).toHaveLength(1);
        expect(oversized[0]).toBeGreaterThan(1024);
      }
    }
  });
});
