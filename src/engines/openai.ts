// Generic OpenAI-compatible adapter: the fallback when no engine-specific probe answers.
// Reads only /v1/models; requests ask for a final usage chunk and nothing engine-specific.

import { openAiRequest } from './openai-request.js';
import { getJsonObject } from './probe.js';
import type { BuiltRequest, EngineAdapter, GenerationParams } from './types.js';

export function openaiRequestFor(params: GenerationParams): BuiltRequest {
  return openAiRequest('openai', params, { continuousUsage: false, ignoreEosField: false });
}

export const openaiAdapter: EngineAdapter = {
  name: 'openai',
  async detect(http) {
    const { json } = await getJsonObject(http, '/v1/models');
    return json !== null && Array.isArray(json.data);
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
  requestFor: openaiRequestFor,
  specCounters() {
    return null;
  },
  whereToRead() {
    return null;
  },
};
