import { describe, expect, it } from 'vitest';
import { findCrash } from './crash-signatures.js';

describe('findCrash', () => {
  it("does not stop a start on SGLang's context_length warning that mentions CUDA errors", () => {
    const warning =
      "[2026-02-14 02:07:50 TP0] Warning: User-specified context_length (131072) is greater than the derived context_length (2048). This may lead to incorrect model outputs or CUDA errors. Note that the derived context_length may differ from max_position_embeddings in the model's config.";
    expect(
      findCrash([warning, '[2026-02-14 02:08:10] The server is fired up and ready to roll!']),
    ).toBeNull();
  });

  it('finds a Python traceback and reports its line number with context', () => {
    const lines = [
      '[2026-01-01 10:00:00] Load weight end.',
      'Traceback (most recent call last):',
      '  File "scheduler.py", line 10, in event_loop',
      'RuntimeError: boom',
    ];
    const hit = findCrash(lines, 5);
    expect(hit?.kind).toBe('python-traceback');
    expect(hit?.line).toBe(6);
    expect(hit?.excerpt).toContain('RuntimeError: boom');
  });

  it('finds a traceback announced mid-line and shows the exception that ends it', () => {
    const lines = [
      '[2026-01-01 10:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):',
      '  File "scheduler.py", line 1, in a',
      '    a()',
      '  File "scheduler.py", line 2, in b',
      '    b()',
      '  File "scheduler.py", line 3, in c',
      '    c()',
      "AttributeError: 'NoneType' object has no attribute 'forward_batch_generation'",
      '[2026-01-01 10:00:01] Received sigquit from a child process.',
    ];
    const hit = findCrash(lines);
    expect(hit?.kind).toBe('python-traceback');
    expect(hit?.line).toBe(1);
    expect(hit?.excerpt).toContain("AttributeError: 'NoneType'");
    expect(hit?.excerpt).not.toContain('sigquit');
  });

  it('recognises CUDA errors and watchdog SIGQUIT lines, even with colour codes', () => {
    expect(findCrash(['\x1b[31mRuntimeError: CUDA error: an illegal memory access\x1b[0m'])?.kind).toBe(
      'cuda-error',
    );
    expect(
      findCrash(['Received sigquit from a child process. It usually means the child failed.'])?.kind,
    ).toBe('watchdog');
  });

  it('returns null for a healthy start-up log', () => {
    const lines = ['server_args=ServerArgs(tp_size=8)', 'The server is fired up and ready to roll!'];
    expect(findCrash(lines)).toBeNull();
  });
});
