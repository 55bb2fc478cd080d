import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { launchSecrets, MAX_LINE_CHARS, openOutputSink } from './output-sink.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

/** Feeds chunks into a sink writing to a temp file; returns the lines handed on and the file's text. */
async function sinkOf(
  argv: string[],
  env: Record<string, string>,
  feed: (s: ReturnType<typeof openOutputSink>) => void,
) {
  const dir = await mkdtemp(join(tmpdir(), 'bg-sink-'));
  dirs.push(dir);
  const outputFile = join(dir, 'out.log');
  const lines: string[] = [];
  const sink = openOutputSink(argv, {
    env,
    outputFile,
    onLine: (l) => lines.push(l),
    secrets: ['plan-key-0001'],
  });
  feed(sink);
  await sink.end();
  return { lines, file: await readFile(outputFile, 'utf8') };
}

describe('the output sink of a launched server', () => {
  it("knows the secrets of the launch: credential env values, secret flags, the caller's", () => {
    const argv = [
      'serve',
      '--api-key',
      'flag-key-01',
      '--hf-token=tok-value-02',
      '--max-num-batched-tokens',
      '8192',
    ];
    expect(
      launchSecrets(argv, {
        env: { HF_TOKEN: 'env-tok-03', MODE: 'fast' },
        secrets: ['plan-key-0001'],
      }).sort(),
    ).toEqual(['env-tok-03', 'flag-key-01', 'plan-key-0001', 'tok-value-02']);
  });

  it('catches a secret the stream cut across chunks, in the file and in the lines handed on, per stream', async () => {
    const { lines, file } = await sinkOf(['serve', '--api-key', 'flag-key-01'], {}, (s) => {
      s.stdout('key was flag-k');
      s.stderr('warning: plan-ke');
      s.stdout('ey-01 ok\nnext\n');
      s.stderr('y-0001 seen\n');
    });
    expect(lines).toEqual(['key was <redacted> ok', 'next', 'warning: <redacted> seen']);
    expect(file).toBe('key was <redacted> ok\nnext\nwarning: <redacted> seen\n');
  });

  it('hands on a line without a newline in pieces of at most MAX_LINE_CHARS', async () => {
    const { lines } = await sinkOf(['serve'], {}, (s) => s.stdout('x'.repeat(MAX_LINE_CHARS * 2 + 5)));
    expect(lines.map((l) => l.length)).toEqual([MAX_LINE_CHARS, MAX_LINE_CHARS, 5]);
  });
});
