import { describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { getAdapter } from '../engines/index.js';
import { LocalHost } from '../hosts/local-host.js';
import { checkSim, failedIds } from './test-support.js';
import { readFingerprintCheap } from './verified-target.js';

const SPEC_ARGS = [
  '--tp-size',
  '8',
  '--speculative-algorithm',
  'EAGLE3',
  '--speculative-num-steps',
  '3',
  '--speculative-num-draft-tokens',
  '4',
];
const V2_ENV = { SGLANG_ENABLE_SPEC_V2: '1' };

describe('checkpoint against the simulated SGLang', () => {
  it('passes when the server runs the intended speculative configuration', async () => {
    const r = await checkSim(
      {
        flavor: 'sglang',
        engineArgs: [...SPEC_ARGS, '--speculative-eagle-topk', '1'],
        env: V2_ENV,
        profile: 'story-moe-int4-8xpcie',
        timeScale: 200,
      },
      ({ url, logFile }) => ({
        target: { url, engine: 'sglang' },
        workload: { output_tokens: { fixed: 24 } },
        expect: {
          config: {
            'speculative.algorithm': 'EAGLE3',
            'speculative.topk': 1,
            overlap_schedule: true,
            tp_size: { '>=': 8 },
          },
          logs: [
            {
              path: logFile,
              contains: 'Spec v2 is enabled',
              must_not_contain: 'Overlap scheduler is disabled',
            },
          ],
          wait: '10s',
        },
      }),
    );
    expect(failedIds(r.report), JSON.stringify(r.report.findings.filter((f) => f.status === 'fail'))).toEqual(
      [],
    );
    expect(r.report.ok).toBe(true);
    expect(r.byId('smoke.acceptance').status).toBe('pass');
    expect(Number(r.byId('smoke.acceptance').found)).toBeGreaterThan(1);
    expect(r.byId('log.0.contains.0').evidence[0].where).toMatch(/server\.log:\d+$/);
    expect(r.verifiedTarget?.engine).toBe('sglang');
    expect(r.verifiedTarget?.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.verifiedTarget?.processStartTime).not.toBeNull();
  });

  it('fails when overlap is silently off (config-drift)', async () => {
    const r = await checkSim(
      {
        flavor: 'sglang',
        engineArgs: [...SPEC_ARGS, '--speculative-eagle-topk', '1'],
        env: V2_ENV,
        faults: ['config-drift'],
      },
      ({ url }) => ({
        target: { url },
        expect: {
          config: { overlap_schedule: true, 'sglang.disable_overlap_schedule': false },
          wait: '5s',
          smoke: false,
        },
      }),
    );
    expect(r.report.ok).toBe(false);
    expect(r.byId('config.overlap_schedule')).toMatchObject({
      status: 'fail',
      expected: 'true',
      found: 'false',
    });
    expect(r.byId('config.sglang.disable_overlap_schedule').status).toBe('fail');
  });

  it('fails on the wrong top-k and names what was found', async () => {
    const r = await checkSim(
      { flavor: 'sglang', engineArgs: [...SPEC_ARGS, '--speculative-eagle-topk', '4'] },
      ({ url }) => ({
        target: { url },
        expect: { config: { 'speculative.topk': 1 }, wait: '5s', smoke: false },
      }),
    );
    expect(r.byId('config.speculative.topk')).toMatchObject({ status: 'fail', expected: '1', found: '4' });
    expect(r.report.ok).toBe(false);
  });

  it('judges only the current start of a log that still holds an older start (stale-log)', async () => {
    const r = await checkSim({ flavor: 'sglang', faults: ['stale-log'] }, ({ url, logFile }) => ({
      target: { url },
      expect: {
        logs: [{ path: logFile, contains: "speculative_algorithm='EAGLE3'" }],
        wait: '5s',
        smoke: false,
      },
    }));
    const f = r.byId('log.0.contains.0');
    expect(f.status).toBe('fail');
    expect(f.found).toMatch(/^only at line \d+, before the last start marker$/);
    expect(r.byId('log.0.fresh').status).toBe('pass');
  });

  it('waits for a slow start within expect.wait, showing elapsed / limit', async () => {
    const r = await checkSim({ flavor: 'sglang', faults: ['slow-start=3'] }, ({ url, logFile }) => ({
      target: { url },
      expect: { wait: '20s', smoke: false, logs: [{ path: logFile, required: false }] },
    }));
    expect(r.byId('healthy').status).toBe('pass');
    expect(r.progress.some((l) => / \d+s \/ 20s /.test(l))).toBe(true);
    // while waiting, the newest server log line is shown
    expect(r.progress.some((l) => / \| \[\d{4}-\d{2}-\d{2} /.test(l))).toBe(true);
  });

  it('fails healthy when the start is slower than expect.wait', async () => {
    const r = await checkSim({ flavor: 'sglang', faults: ['slow-start=30'] }, ({ url }) => ({
      target: { url },
      expect: { wait: '1s' },
    }));
    expect(r.byId('reachable').status).toBe('pass');
    expect(r.byId('healthy')).toMatchObject({ status: 'fail' });
    expect(r.byId('healthy').found).toMatch(/wait limit 1s/);
    expect(r.byId('smoke').status).toBe('skip');
    expect(r.report.ok).toBe(false);
  });

  it('does not name a loading server "openai": its engine is unknown until it is ready (issue 24 item 13)', async () => {
    const r = await checkSim({ flavor: 'sglang', faults: ['slow-start=30'] }, ({ url }) => ({
      target: { url },
    }));
    expect(r.byId('healthy').status).toBe('fail');
    expect(r.byId('engine')).toMatchObject({ status: 'skip' });
    expect(r.byId('engine').found).toMatch(/^unknown: the server is not ready .*answered 503/);
  });

  it('catches crash-on-first-decode with the smoke generation', async () => {
    const r = await checkSim({ flavor: 'sglang', faults: ['crash-on-first-decode'] }, ({ url }) => ({
      target: { url },
      expect: { wait: '5s' },
    }));
    expect(r.byId('smoke').status).toBe('fail');
    expect(r.byId('smoke').found).toMatch(/^BG_E_/);
    expect(failedIds(r.report)).toContain('smoke');
  });

  it('detects a restart after the checkpoint as drift (restart-after)', async () => {
    const r = await checkSim(
      { flavor: 'sglang', faults: ['restart-after=2'] },
      ({ url }) => ({ target: { url }, expect: { wait: '5s' } }),
      { keepOpen: true },
    );
    try {
      const target = r.verifiedTarget!;
      const http = createTargetHttp(target.url);
      const args = { target, http, adapter: getAdapter('sglang'), host: new LocalHost() };
      expect(await readFingerprintCheap(args)).toEqual({ valid: true, reasons: [] });
      // the smoke was generation 1; generation 2 triggers the restart
      await fetch(`${target.url}/v1/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: target.model, prompt: 'hi', max_tokens: 2 }),
      });
      let drift = await readFingerprintCheap(args);
      for (let i = 0; i < 50 && drift.valid; i++) {
        await new Promise((res) => setTimeout(res, 20));
        drift = await readFingerprintCheap(args);
      }
      expect(drift.valid).toBe(false);
      expect(drift.reasons.join(' ')).toMatch(/restart/);
    } finally {
      await r.sim.close();
    }
  });
});

describe('checkpoint against the simulated vLLM', () => {
  it('passes on matching config read from the engine-config log line', async () => {
    const r = await checkSim(
      { flavor: 'vllm', engineArgs: ['--tensor-parallel-size', '4'] },
      ({ url, logFile }) => ({
        target: { url, engine: 'vllm' },
        workload: { output_tokens: { fixed: 8 } },
        expect: { config: { tp_size: 4, engine: 'vllm' }, logs: [{ path: logFile }], wait: '5s' },
      }),
    );
    expect(failedIds(r.report)).toEqual([]);
    expect(r.byId('config.tp_size').evidence[0].where).toBeTruthy();
  });

  it('fails a wrong expectation and an unknown field with where to read it', async () => {
    const r = await checkSim({ flavor: 'vllm', engineArgs: ['--tensor-parallel-size', '4'] }, ({ url }) => ({
      target: { url },
      expect: { config: { tp_size: 8, overlap_schedule: true }, wait: '5s', smoke: false },
    }));
    expect(r.byId('config.tp_size').status).toBe('fail');
    expect(r.byId('config.overlap_schedule').found).toMatch(/^unknown: not exposed by vllm; read it from /);
  });

  it('catches crash-on-first-decode', async () => {
    const r = await checkSim({ flavor: 'vllm', faults: ['crash-on-first-decode'] }, ({ url }) => ({
      target: { url },
      expect: { wait: '5s' },
    }));
    expect(r.byId('smoke').status).toBe('fail');
  });
});

describe('checkpoint against a plain OpenAI-compatible simulator', () => {
  it('identifies the engine and model and passes the smoke generation', async () => {
    const r = await checkSim({ flavor: 'openai' }, ({ url }) => ({
      target: { url, api: 'chat' },
      workload: { output_tokens: { fixed: 8 } },
      expect: { wait: '5s' },
    }));
    expect(r.byId('engine').found).toBe('openai');
    expect(r.byId('smoke').status).toBe('pass');
    expect(r.report.ok).toBe(true);
  });

  it('fails a required expectation on a field a generic server does not expose', async () => {
    const r = await checkSim({ flavor: 'openai' }, ({ url }) => ({
      target: { url },
      expect: { config: { 'speculative.topk': 1 }, wait: '5s', smoke: false },
    }));
    expect(r.byId('config.speculative.topk')).toMatchObject({ status: 'fail' });
    expect(r.byId('config.speculative.topk').found).toMatch(/^unknown: not exposed by openai/);
  });
});
