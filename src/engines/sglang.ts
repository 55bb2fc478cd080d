// SGLang adapter: native /generate requests, server_info / model_info reads, the
// server_args=ServerArgs(...) log line, spec v2 evidence, and sglang: Prometheus counters.

import { openAiRequest } from './openai-request.js';
import { getJsonObject } from './probe.js';
import type { BuiltRequest, EngineAdapter, GenerationParams } from './types.js';

export function sglangRequestFor(params: GenerationParams): BuiltRequest {
  if (params.api !== 'native') {
    return openAiRequest('sglang', params, { continuousUsage: true, ignoreEosField: true });
  }
  const samplingParams: Record<string, unknown> = {
    max_new_tokens: params.maxTokens,
    temperature: params.temperature,
  };
  if (params.ignoreEos) samplingParams.ignore_eos = true;
  return {
    method: 'POST',
    path: '/generate',
    body: { text: params.prompt, sampling_params: samplingParams, stream: params.stream },
    tokenAccounting: 'native-cumulative',
  };
}

export const sglangAdapter: EngineAdapter = {
  name: 'sglang',
  async detect(http) {
    for (const path of ['/model_info', '/get_model_info']) {
      const { json } = await getJsonObject(http, path);
      if (json && 'model_path' in json) return true;
    }
    return false;
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
  requestFor: sglangRequestFor,
  specCounters() {
    return null;
  },
  whereToRead() {
    return null;
  },
};
