import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePlanText } from '../plan/load.js';
import { resolveConfig } from './config-plan.js';
import { defaultStages } from './default-stages.js';
import { freeLoopbackPorts } from './free-port.js';
import { runMatrix } from './run-matrix.js';
import { pidsWithMarker, simConfig, testPlan, uniqueMarker } from './test-support/matrix-fixtures.js';

let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'bg-config-plan-'));
});
afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

const PLAN = `
host: ssh://bench@gpu-box:2222
target: { url: "http://gpu-box:30000" }
configs:
  - name: inherits
    launch: { command: python3 -m sglang.launch_server }
  - name: overrides
    launch: { command: python3 -m sglang.launch_server, host: local }
`;

describe("a config's host", () => {
  it("defaults to the plan's host, and a config's own launch.host overrides it", () => {
    const plan = parsePlanText(PLAN, 'plan.yaml');
    const [inherits, overrides] = plan.configs ?? [];
    const a = resolveConfig(plan, inherits!, 'plan.yaml');
    const b = resolveConfig(plan, overrides!, 'plan.yaml');
    expect(a.hostSpec).toBe('ssh://bench@gpu-box:2222');
    expect(b.hostSpec).toBe('local');
    // the per-config plan the checkpoint opens its host from says the same machine
    expect(a.plan.host).toBe('ssh://bench@gpu-box:2222');
    expect(b.plan.host).toBe('local');
    expect(a.launchFingerprint).not.toBe(b.launchFingerprint);
  });

  it('benchgate run launches nothing locally when only the plan names an unreachable SSH host', async () => {
    const marker = uniqueMarker();
    const [port] = await freeLoopbackPorts(1);
    // the config itself names no host: before, it silently launched (and checked) on this machine
    const plan = testPlan(out, [simConfig({ name: 'remote-by-plan', port: port!, marker })], {
      host: 'ssh://nobody@127.0.0.1:1',
    });
    const result = await runMatrix({
      plan,
      planPath: null,
      stages: defaultStages(),
      log: () => {},
      progress: () => {},
      print: () => {},
    });
    const c = result.configs[0]!;
    expect(c.status).toBe('failed');
    expect(c.failure?.message).toContain('ssh://nobody@127.0.0.1:1');
    expect(await pidsWithMarker(marker)).toEqual([]);
  });
});
