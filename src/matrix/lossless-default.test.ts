// When the matrix runs the lossless check without being asked, and against which baseline: the configs'
// speculative settings as each engine's own command-line reader sees them.
import { describe, expect, it } from 'vitest';
import { type PlanInput, planSchema } from '../plan/schema.js';
import { matrixLossless, speculativeSettings } from './lossless-default.js';

const config = (name: string, command: string, args: string[], extra: object = {}) => ({
  name,
  url: 'http://127.0.0.1:30000',
  launch: { command, args },
  ...extra,
});
const plan = (configs: object[], more: Partial<PlanInput> = {}) =>
  planSchema.parse({ target: { engine: 'auto' }, configs, ...more } as PlanInput);

const sglang = (extra: string[] = []) => [
  '-m',
  'sglang.launch_server',
  '--model-path',
  'm',
  '--tp-size',
  '8',
  ...extra,
];

describe('the lossless check by default', () => {
  it('runs when the configs differ in speculative settings, against the config without speculation', () => {
    const p = plan([
      config(
        'eagle3',
        'python3',
        sglang(['--speculative-algorithm', 'EAGLE3', '--speculative-num-steps', '3']),
      ),
      config('baseline', 'python3', sglang()),
    ]);
    const l = matrixLossless(p);
    expect(l?.baseline).toBe('baseline');
    expect(l?.spec).toMatchObject({ enabled: true, prompts: 16, max_tokens: 64, near_tie_nats: 0.25 });
    expect(l?.why).toBe(
      'on by default: the configs differ in speculative settings (eagle3 EAGLE3, baseline none); `lossless: false` turns it off',
    );
  });

  it('reads vLLM --speculative-config, llama.cpp --spec-type and declared expectations', () => {
    const vllm = plan([
      config('v', 'vllm', [
        'serve',
        'm',
        '--speculative-config',
        '{"method":"eagle3","model":"d","num_speculative_tokens":3}',
      ]),
    ]);
    expect(String(speculativeSettings(vllm, vllm.configs![0])['speculative.algorithm'])).toMatch(/^eagle3$/i);
    const llama = plan([
      config('l', 'llama-server', ['-m', 'm.gguf', '-md', 'draft.gguf', '--spec-type', 'draft-simple']),
    ]);
    expect(speculativeSettings(llama, llama.configs![0])['speculative.algorithm']).toBeTruthy();
    const declared = plan([
      config('d', './start.sh', [], { expect: { config: { 'speculative.algorithm': 'NGRAM' } } }),
    ]);
    expect(speculativeSettings(declared, declared.configs![0])).toEqual({ 'speculative.algorithm': 'NGRAM' });
  });

  it('does not run when no config differs in speculation, or when the plan says lossless: false', () => {
    expect(
      matrixLossless(
        plan([
          config('a', 'python3', sglang()),
          config('b', 'python3', sglang(['--mem-fraction-static', '0.8'])),
        ]),
      ),
    ).toBeNull();
    const spec = [
      config('a', 'python3', sglang()),
      config('b', 'python3', sglang(['--speculative-algorithm', 'EAGLE3'])),
    ];
    expect(matrixLossless(plan(spec, { lossless: false } as Partial<PlanInput>))).toBeNull();
  });

  it('keeps a named baseline and an explicit section', () => {
    const spec = [
      config('a', 'python3', sglang()),
      config('b', 'python3', sglang(['--speculative-algorithm', 'EAGLE3'])),
    ];
    const l = matrixLossless(plan(spec, { lossless: { baseline: 'b', prompts: 4 } } as Partial<PlanInput>));
    expect(l).toMatchObject({ baseline: 'b', why: "the plan's lossless section", spec: { prompts: 4 } });
  });

  it('turns on for llama.cpp plain vs -md without --spec-type, and for a declared { present: true }', () => {
    const llama = (extra: string[]) => ['-m', 'main.gguf', '--port', '8080', ...extra];
    const p = plan(
      [
        config('plain', 'llama-server', llama([])),
        config('draft', 'llama-server', llama(['-md', 'draft.gguf'])),
      ],
      { target: { engine: 'llamacpp' } },
    );
    expect(matrixLossless(p)?.baseline).toBe('plain');
    const declared = plan(
      [
        config('plain', 'python3', sglang()),
        config('spec', 'python3', sglang(), {
          expect: { config: { 'speculative.algorithm': { present: true } } },
        }),
      ],
      { target: { engine: 'sglang' } },
    );
    expect(matrixLossless(declared)?.baseline).toBe('plain');
  });
});
