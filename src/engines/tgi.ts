// Hugging Face TGI adapter: OpenAI requests (final usage only, no ignore_eos), /info reads.

import { openAiRequest } from './openai-request.js';
import { getJsonObject } from './probe.js';
import type { BuiltRequest, EngineAdapter, GenerationParams } from './types.js';

export function tgiRequestFor(params: GenerationParams): BuiltRequest {
  return openAiRequest('tgi', params, { continuousUsage: false, ignoreEosField: false });
}

export const tgiAdapter: EngineAdapter = {
  name: 'tgi',
  async detect(http) {
    const { json } = await getJsonObject(http, '/info');
    return (
      json !== null && typeof json.model_id === 'string' && ('max_total_tokens' in json || 'router' in json)
    );
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
  requestFor: tgiRequestFor,
  specCounters() {
    return null;
  },
  whereToRead() {
    return null;
  },
};
