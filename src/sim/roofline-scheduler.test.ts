import { afterEach, describe, expect, it } from 'vitest';
import type { SimulatorHandle } from './api.js';
import { startSimulator } from './index.js';
import { post } from './testing/sse.js';

const handles: SimulatorHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close()));
});

async function gauge(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
}

async function until(cond: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('roofline scheduler queue', () => {
  it('drops a queued request whose client went away, and serves the next one', async () => {
    const h = await startSimulator({
      flavor: 'sglang',
      profile: 'dense-8b-1gpu',
      timeScale: 5,
      loadTimeS: 0,
      engineArgs: ['--max-running-requests', '1'],
    });
    handles.push(h);
    await h.ready;
    // the first request runs for tens of seconds, so the queue can only empty by dropping the aborted one
    const body = { text: 'a b c', sampling_params: { max_new_tokens: 20000 }, stream: true };
    const first = await post(`${h.url}/generate`, body);
    const leaving = new AbortController();
    const queued = fetch(`${h.url}/generate`, {
      method: 'POST',
      body: JSON.stringify(body),
      signal: leaving.signal,
    }).catch(() => null);
    await until(async () => (await gauge(h.url, 'sglang:num_queue_reqs')) === 1);
    expect(await gauge(h.url, 'sglang:num_queue_reqs')).toBe(1);
    leaving.abort();
    await queued;
    await until(async () => (await gauge(h.url, 'sglang:num_queue_reqs')) === 0);
    expect(await gauge(h.url, 'sglang:num_queue_reqs')).toBe(0);
    expect(await gauge(h.url, 'sglang:num_running_reqs')).toBe(1);
    await first.body?.cancel();
    const next = await post(`${h.url}/generate`, {
      ...body,
      stream: false,
      sampling_params: { max_new_tokens: 3 },
    });
    expect(
      ((await next.json()) as { meta_info: { completion_tokens: number } }).meta_info.completion_tokens,
    ).toBe(3);
  });
});
