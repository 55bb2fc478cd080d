// llama.cpp (llama-server) adapter: OpenAI requests, /props, /health and /slots reads.

import { openAiRequest } from './openai-request.js';
import { getJsonObject } from './probe.js';
import type { BuiltRequest, EngineAdapter, GenerationParams } from './types.js';

export function llamacppRequestFor(params: GenerationParams): BuiltRequest {
  return openAiRequest('llamacpp', params, { continuousUsage: false, ignoreEosField: true });
}

export const llamacppAdapter: EngineAdapter = {
  name: 'llamacpp',
  async detect(http) {
    const { json } = await getJsonObject(http, '/props');
    return json !== null && ('default_generation_settings' in json || 'total_slots' in json);
  },
  async readLive() {
    return { facts: {}, raw: {} };
  },
  readLog() {
    return { facts: {}, startMarkerLines: [], startMarkerTimes: [], readyLine: null, crashes: [] };
  },
  readProcess() {
    return {};
  },
  requestFor: llamacppRequestFor,
  specCounters() {
    return null;
  },
  whereToRead() {
    return null;
  },
};
