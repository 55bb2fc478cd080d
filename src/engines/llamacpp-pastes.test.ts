// llama-server output as users paste it (fixtures written for this project after real pastes): the
// router of 2026 and its HTTP worker pool, an older build's pool line printed before the model loads,
// and a /props body cut inside its first field, which still identifies the server.

import { describe, expect, it } from 'vitest';
import { createTargetHttp } from '../client/target-http.js';
import { startFixtureServer } from './fixture-server.js';
import { llamacppAdapter } from './llamacpp.js';
import { expectLogCase, type LogCase } from './test-support/log-case.js';

const CASES: LogCase[] = [
  {
    file: 'paste-llamacpp-2026-router-http-threads.txt',
    adapter: llamacppAdapter,
    facts: {
      engine_version: 'b9301-a1b2c3d4e',
      'llamacpp.role': 'router',
      'llamacpp.http_threads': 11,
      'llamacpp.n_parallel': 4,
    },
    unknown: ['model', 'max_running_requests'],
    ready: 7,
    failedStart: null,
  },
  {
    file: 'paste-llamacpp-b5012-http-threads-loading.txt',
    adapter: llamacppAdapter,
    // "HTTP server is listening" comes before the model loads: not the ready line
    facts: {
      engine_version: 'b5012-0f2e4d1a',
      'llamacpp.http_threads': 5,
      model: '/models/orca-3b-q4_k_m.gguf',
    },
    ready: null,
    failedStart: null,
  },
];

describe('llama-server logs as pasted into issues', () => {
  it.each(CASES)('$file gives the facts a correct reader extracts', (c) => {
    expectLogCase(c);
  });
});

describe('a /props body cut inside its first field', () => {
  it('still identifies llama-server, and reads nothing from the cut object', async () => {
    const body = `{\n  "default_generation_settings": {\n    "params": {\n      "seed": 4294967295,\n      "speculative.n_max": 16,\n`;
    const server = await startFixtureServer({ '/props': { body, contentType: 'application/json' } });
    try {
      const http = createTargetHttp(server.url);
      expect(await llamacppAdapter.detect(http)).toBe(true);
      const { facts } = await llamacppAdapter.readLive(http);
      expect(facts.context_length).toBeUndefined();
      expect(facts['speculative.num_steps']).toBeUndefined();
      expect(facts['llamacpp.truncated_body'].value).toContain('"default_generation_settings"');
    } finally {
      await server.close();
    }
  });
});
