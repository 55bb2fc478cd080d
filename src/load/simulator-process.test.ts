import { describe, expect, it } from 'vitest';
import { startSimulatorProcess } from './simulator-process.js';

describe('embedded simulator in a child process', () => {
  it('serves the OpenAI surface until closed, then stops listening', async () => {
    const sim = await startSimulatorProcess({ flavor: 'vllm', profile: 'fixed', ttftMs: 5, itlMs: 1 });
    const models = (await (await fetch(`${sim.url}/v1/models`)).json()) as { data: { id: string }[] };
    expect(models.data.length).toBeGreaterThan(0);
    await sim.close();
    await expect(fetch(`${sim.url}/health`)).rejects.toThrow();
  });
});
