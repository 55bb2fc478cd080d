import { describe, expect, it } from 'vitest';
import {
  listeningInodes,
  parseBootTimeS,
  parseEnviron,
  parseProcStat,
  processInfoFromProc,
  socketInode,
  startTimeIso,
} from './proc-parse.js';

describe('proc parsers', () => {
  it('reads state, ppid and start ticks even when the command name has spaces and parentheses', () => {
    const stat =
      '4242 (python3 (sglang) x) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 12 0 987654 1000 200 18446744073709551615';
    expect(parseProcStat(stat)).toEqual({ pid: 4242, state: 'S', ppid: 1, startTicks: 987654 });
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('computes the start time from boot time and clock ticks', () => {
    expect(parseBootTimeS('cpu 1 2 3\nbtime 1700000000\nprocesses 5\n')).toBe(1700000000);
    expect(startTimeIso(12345, 1700000000, 100)).toBe(new Date((1700000000 + 123.45) * 1000).toISOString());
  });

  it('redacts secret-looking environment values', () => {
    const env = parseEnviron(
      'PATH=/bin\0OPENAI_API_KEY=sk-abc\0HF_TOKEN=hf_x\0NOTE=sk-live0123456789abcdef\0SGLANG_ENABLE_SPEC_V2=1\0',
    );
    expect(env).toEqual({
      PATH: '/bin',
      OPENAI_API_KEY: '<redacted>',
      HF_TOKEN: '<redacted>',
      NOTE: '<redacted>',
      SGLANG_ENABLE_SPEC_V2: '1',
    });
  });

  it('finds listening sockets on a port in /proc/net/tcp text and ignores established ones', () => {
    const text = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 55501 1 0000000000000000 100 0 0 10 0',
      '   1: 0100007F:7530 0100007F:D2F0 01 00000000:00000000 00:00000000 00000000     0        0 55502 1 0000000000000000 20 4 30 10 -1',
      '   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0000000000000000 100 0 0 10 0',
    ].join('\n');
    expect(listeningInodes(text, 30000)).toEqual([55501]);
    expect(socketInode('socket:[55501]')).toBe(55501);
    expect(socketInode('/dev/null')).toBeNull();
  });
});

describe('argv redaction', () => {
  it('hides secret flag values and key-looking values but keeps config flags', async () => {
    const { redactArgv } = await import('./redact-env.js');
    expect(
      redactArgv([
        'python3',
        '-m',
        'sglang.launch_server',
        '--api-key',
        'abc',
        '--hf-token=hf_x',
        '--tp-size',
        '8',
      ]),
    ).toEqual([
      'python3',
      '-m',
      'sglang.launch_server',
      '--api-key',
      '<redacted>',
      '--hf-token=<redacted>',
      '--tp-size',
      '8',
    ]);
  });
});

describe('processInfoFromProc', () => {
  const stat = '77 (vllm) S 1 77 77 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 500 0 0';

  it('builds start time, argv and environment with secrets redacted', () => {
    const info = processInfoFromProc(77, {
      stat,
      cmdline: 'vllm\0serve\0--api-key\0sk-live-123\0',
      environ: 'HF_TOKEN=hf_abc\0PATH=/bin\0',
      bootText: 'cpu 1 2 3\nbtime 1700000000\n',
      clockTicksPerS: 100,
    });
    expect(info).toMatchObject({ pid: 77, ppid: 1, state: 'S', startTime: '2023-11-14T22:13:25.000Z' });
    expect(JSON.stringify(info)).not.toMatch(/sk-live-123|hf_abc/);
    expect(info?.env?.PATH).toBe('/bin');
  });

  it('keeps what could not be read as unknown, and is null for text that is not a stat line', () => {
    const info = processInfoFromProc(77, {
      stat,
      cmdline: null,
      environ: null,
      bootText: null,
      clockTicksPerS: 100,
    });
    expect(info).toMatchObject({ argv: [], env: null, startTime: null });
    expect(
      processInfoFromProc(77, {
        stat: 'garbage',
        cmdline: null,
        environ: null,
        bootText: null,
        clockTicksPerS: 100,
      }),
    ).toBeNull();
  });
});
