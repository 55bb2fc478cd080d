import { describe, expect, it } from 'vitest';
import { findCrashes, findFailedStart } from './log-crashes.js';
import { logReadingFromStarts, startIndices, startRegionFirst } from './log-reading.js';
import { lineTimestamp, logicalLines, stripAnsi } from './logtext.js';

describe('stripAnsi', () => {
  it('removes colour and cursor sequences', () => {
    expect(stripAnsi('\u001b[32mINFO\u001b[0m 05-01 \u001b[1;33mwarn\u001b[0m')).toBe('INFO 05-01 warn');
  });
});

describe('logicalLines', () => {
  it('re-joins lines a terminal hard-wrapped at a fixed width and keeps first line numbers', () => {
    const record = `INFO 05-01 10:00:00 [utils.py:1] non-default args: {'model': 'org/a-very-long-model-name', 'tensor_parallel_size': 8, 'max_num_seqs': 64, 'speculative_config': {'method': 'eagle3', 'num_speculative_tokens': 3}}`;
    const width = 80;
    const wrapped: string[] = [];
    for (let i = 0; i < record.length; i += width) wrapped.push(record.slice(i, i + width));
    const text = [
      'INFO 05-01 09:59:59 [api_server.py:1] vLLM API server version 0.10.1',
      ...wrapped,
      'INFO 05-01 10:00:01 next',
    ].join('\n');
    const lines = logicalLines(text);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toEqual({ line: 2, text: record });
    expect(lines[2].line).toBe(2 + wrapped.length);
  });

  it('does not join short lines that merely repeat a length', () => {
    const listening = 'main: server is listening on http://127.0.0.1:8080 - starting the main loop';
    const lines = logicalLines([listening, 'build: 1 (a)', listening, 'Segmentation fault'].join('\n'));
    expect(lines).toHaveLength(4);
  });

  it('leaves unwrapped logs line for line', () => {
    const lines = logicalLines('a\r\nb\n\nc\n');
    expect(lines.map((l) => l.text)).toEqual(['a', 'b', '', 'c']);
  });
});

describe('lineTimestamp', () => {
  it('reads SGLang, ISO and vLLM (year-less) timestamps as UTC ISO', () => {
    expect(lineTimestamp('[2026-02-14 15:17:50] server_args=ServerArgs(')).toBe('2026-02-14T15:17:50.000Z');
    expect(lineTimestamp('2026-02-14T15:17:50.123+02:00 x')).toBe('2026-02-14T13:17:50.123Z');
    expect(lineTimestamp('(APIServer pid=7) INFO 03-07 12:29:02 [api_server.py:1] x', 2025)).toBe(
      '2025-03-07T12:29:02.000Z',
    );
    expect(lineTimestamp('no time here')).toBeNull();
  });
});

describe('findCrashes', () => {
  it('reports a traceback at its first line with its final exception line', () => {
    const lines = logicalLines(
      [
        '[2026-01-01 00:00:00] Scheduler hit an exception: Traceback (most recent call last):',
        '  File "/x/scheduler.py", line 10, in run',
        '    self.worker.forward()',
        "AttributeError: 'NoneType' object has no attribute 'forward'",
        '',
        '[2026-01-01 00:00:01] Received sigquit from a child process. It usually means the child failed.',
        'RuntimeError: CUDA error: an illegal memory access was encountered',
      ].join('\n'),
    );
    expect(findCrashes(lines)).toEqual([
      { line: 1, excerpt: "AttributeError: 'NoneType' object has no attribute 'forward'" },
      {
        line: 6,
        excerpt:
          '[2026-01-01 00:00:01] Received sigquit from a child process. It usually means the child failed.',
      },
      { line: 7, excerpt: 'RuntimeError: CUDA error: an illegal memory access was encountered' },
    ]);
  });

  it('does not mistake configuration lines mentioning the watchdog for crashes', () => {
    const lines = logicalLines(
      '[t] server_args=ServerArgs(watchdog_timeout=300, soft_watchdog_timeout=None)\n[t] Set soft_watchdog_timeout since in CI',
    );
    expect(findCrashes(lines)).toEqual([]);
  });
});

describe('startRegionFirst', () => {
  const lines = logicalLines(
    [
      '[2026-01-01 09:00:00] Decode batch. #running-req: 1',
      '[2026-01-01 10:00:00] WARNING old warning an hour before',
      '',
      '[2026-01-02 10:00:00] WARNING Spec v2 is enabled',
      'UserWarning: something without a timestamp',
      "[2026-01-02 10:00:05] server_args=ServerArgs(model_path='m')",
    ].join('\n'),
  );
  it('reaches back over lines printed shortly before the marker, not over an earlier run', () => {
    expect(startRegionFirst(lines, 5, -1, (t) => t.includes('Decode batch'))).toBe(3);
  });
  it('stops at lines that belong to an earlier run', () => {
    expect(startRegionFirst(lines, 5, -1, (t) => t.includes('Spec v2'))).toBe(5);
  });
});

describe('logReadingFromStarts', () => {
  const log = [
    'START v1',
    'ready',
    'Traceback (most recent call last):',
    'RuntimeError: boom',
    'START v2',
    'loading',
    'ready',
  ].join('\n');

  it('takes the ready line and crashes from after the last start only', () => {
    const lines = logicalLines(log);
    const starts = startIndices(lines, (t) => t.startsWith('START'));
    const reading = logReadingFromStarts(lines, starts, (t) => t === 'ready', {});
    expect(reading.startMarkerLines).toEqual([1, 5]);
    expect(reading.startRegionFirstLines).toEqual([1, 5]);
    expect(reading.readyLine).toBe(7);
    expect(reading.crashes).toEqual([]);
  });

  it('reads the whole log when no start marker is found', () => {
    const lines = logicalLines(log);
    const reading = logReadingFromStarts(lines, [], (t) => t === 'ready', {});
    expect(reading.startMarkerLines).toEqual([]);
    expect(reading.readyLine).toBe(2);
    expect(reading.crashes.length).toBeGreaterThan(0);
  });
});

describe('findFailedStart', () => {
  const lines = (t: string[]) => logicalLines(t.join('\n'));
  const tb = ['Traceback (most recent call last):', '  File "x.py", line 1, in f', 'ValueError: bad draft'];
  it('takes a traceback the log ends on as a dead start, but not one the start went on past', () => {
    expect(findFailedStart(lines(['INFO 01-01 00:00:00 [a] start', ...tb]), {}, () => false)).toEqual({
      line: 2,
      excerpt: 'ValueError: bad draft',
    });
    const goesOn = [
      ...tb,
      ...Array.from({ length: 10 }, (_, i) => `INFO 01-01 00:00:0${i % 10} [a] loading ${i}`),
    ];
    expect(findFailedStart(lines(goesOn), {}, () => false)).toBeNull();
  });

  it('takes a traceback the start never got past, however much shutdown noise follows it', () => {
    const noise = [
      '(APIServer pid=5) INFO 01-01 00:00:09 [core.py:1] Received shutdown signal, shutting down engine core.',
      '/usr/lib/python3.12/multiprocessing/resource_tracker.py:279: UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects to clean up at shutdown',
      "  warnings.warn('resource_tracker: There appear to be %d '",
      '(EngineCore_DP0 pid=6) ERROR 01-01 00:00:10 [core.py:2] Process group destroyed while waiting.',
      '(EngineCore_DP0 pid=6) WARNING 01-01 00:00:10 [core.py:3] still waiting',
      '(EngineCore_DP0 pid=6) INFO 01-01 00:00:10 [core.py:4] Engine core proc EngineCore_DP0 exiting.',
      '[rank0]:[W101 00:00:10.1 ProcessGroupNCCL.cpp:1479] Warning: destroy_process_group() was not called',
      '',
    ];
    const dead = findFailedStart(lines(['INFO 01-01 00:00:00 [a] start', ...tb, ...noise]), {}, () => false);
    expect(dead).toEqual({ line: 2, excerpt: 'ValueError: bad draft' });
  });

  it('ends the start at an engine fatal line after the ready line, but not at a request error', () => {
    const fatal = { fatal: [/EngineCore encountered a fatal error/] };
    const after = [
      'ready',
      'ERROR request 1 failed: bad json',
      'ERROR EngineCore encountered a fatal error.',
      ...tb,
    ];
    expect(findFailedStart(lines(after), fatal, (x) => x === 'ready')).toEqual({
      line: 3,
      excerpt: 'ERROR EngineCore encountered a fatal error. (cause: ValueError: bad draft)',
      afterReady: true,
    });
    expect(findFailedStart(lines(after.slice(0, 2)), fatal, (x) => x === 'ready')).toBeNull();
  });

  it('ignores failures after the ready line (those are crashes, not a failed start)', () => {
    const t = ['ready', 'torch.OutOfMemoryError: CUDA out of memory.'];
    expect(findFailedStart(lines(t), {}, (x) => x === 'ready')).toBeNull();
    expect(findFailedStart(lines(t.slice(1)), {}, (x) => x === 'ready')?.line).toBe(1);
  });
});

describe('logicalLines with several wrap widths', () => {
  const wrap = (s: string, w: number) => s.match(new RegExp(`.{1,${w}}`, 'g')) ?? [];
  it('re-joins records wrapped at 80 and at 120 columns in one file, and a wrap whose trailing blank was trimmed', () => {
    const a = `INFO 05-01 10:00:00 [utils.py:1] non-default args: {${"'k': 1, ".repeat(30)}}`;
    const b = `INFO 05-01 10:00:01 [core.py:1] Initializing a V1 LLM engine (v0.11.2) with config: ${'x=1, '.repeat(60)}`;
    const c = `INFO 05-01 10:00:02 [x.py:1] ${'word '.repeat(40)}`;
    const cWrapped = wrap(c, 80).map((l) => l.replace(/ $/, '')); // a copy trims each row's trailing blank
    const lines = logicalLines(
      [...wrap(a, 80), ...wrap(b, 120), ...cWrapped, 'INFO 05-01 10:00:03 end'].join('\n'),
    );
    expect(lines.map((l) => l.text)).toEqual([a, b, c.replace(/ +$/, ''), 'INFO 05-01 10:00:03 end']);
  });
});
