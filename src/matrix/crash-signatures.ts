// Recognises the log lines that mean a server process is dying or dead even while its PID lives on:
// Python tracebacks, CUDA/NCCL errors, out-of-memory, and watchdog SIGQUIT lines.

export interface CrashHit {
  /** 1-based line number in the captured output. */
  line: number;
  kind: 'python-traceback' | 'cuda-error' | 'out-of-memory' | 'watchdog' | 'fatal-signal';
  excerpt: string;
}

const SIGNATURES: { kind: CrashHit['kind']; re: RegExp }[] = [
  { kind: 'python-traceback', re: /Traceback \(most recent call last\):/ },
  {
    kind: 'cuda-error',
    re: /\b(CUDA error|CUDA_ERROR_\w+|cudaError\w*|NCCL error|illegal memory access)\b/i,
  },
  { kind: 'out-of-memory', re: /\b(OutOfMemoryError|CUDA out of memory)\b/ },
  { kind: 'watchdog', re: /\b(SIGQUIT|watchdog timeout|Watchdog caught collective operation timeout)\b/i },
  { kind: 'fatal-signal', re: /\b(Segmentation fault|core dumped|Fatal Python error)\b/ },
];

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** The first crash signature in `lines` (numbered from `firstLineNumber`), with a few lines of context. */
export function findCrash(lines: readonly string[], firstLineNumber = 1): CrashHit | null {
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].replace(ANSI, '');
    for (const sig of SIGNATURES) {
      if (sig.re.test(text)) {
        const clean = lines.map((l) => l.replace(ANSI, ''));
        let excerptLines = clean.slice(i, i + 8);
        if (sig.kind === 'python-traceback') {
          // the start line, then the exception line that ends the traceback (the first unindented line)
          const end = clean.findIndex((l, j) => j > i && l.trim() !== '' && !/^\s/.test(l));
          if (end > i)
            excerptLines =
              end - i <= 6 ? clean.slice(i, end + 1) : [...clean.slice(i, i + 3), '  …', clean[end]];
        }
        const excerpt = excerptLines.join('\n').slice(0, 600);
        return { line: firstLineNumber + i, kind: sig.kind, excerpt };
      }
    }
  }
  return null;
}
