// vLLM adapter: OpenAI requests with continuous usage, /version + /v1/models + /metrics reads,
// `non-default args:` and engine-config log lines, and vllm:spec_decode_* counters.

import { openAiRequest } from './openai-request.js';
import { getJsonObject } from './probe.js';
import type { BuiltRequest, EngineAdapter, GenerationParams } from './types.js';

export function vllmRequestFor(params: GenerationParams): BuiltRequest {
  return openAiRequest('vllm', params, { continuousUsage: true, ignoreEosField: true });
}

export const vllmAdapter: EngineAdapter = {
  name: 'vllm',
  async detect(http) {
    const { json } = await getJsonObject(http, '/version');
    return json !== null && typeof json.version === 'string' && Object.keys(json).length <= 3;
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
  requestFor: vllmRequestFor,
  specCounters() {
    return null;
  },
  whereToRead() {
    return null;
  },
};
