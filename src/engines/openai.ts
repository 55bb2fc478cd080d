// Generic OpenAI-compatible adapter: the fallback when no engine-specific probe answers.
// Reads only /v1/models; requests ask for a final usage chunk and nothing engine-specific.

import { setFact } from './facts.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, readModelEntries } from './probe.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  TargetHttp,
} from './types.js';

export function openaiRequestFor(params: GenerationParams): BuiltRequest {
  return openAiRequest('openai', params, { continuousUsage: false, ignoreEosField: false });
}

async function readLive(http: TargetHttp): Promise<LiveReading> {
  const raw: Record<string, unknown> = {};
  const facts: ConfigFacts = {};
  const data = await readModelEntries(http, raw);
  if (data) {
    setFact(facts, 'engine', 'openai', 'GET /v1/models');
    if (data[0]) {
      setFact(facts, 'served_model_name', data[0].id, 'GET /v1/models');
      setFact(facts, 'openai.owned_by', data[0].owned_by, 'GET /v1/models');
      setFact(facts, 'context_length', data[0].max_model_len, 'GET /v1/models');
    }
    setFact(facts, 'openai.model_count', data.length, 'GET /v1/models');
  }
  return { facts, raw };
}

export const openaiAdapter: EngineAdapter = {
  name: 'openai',
  async detect(http) {
    const { json } = await getJsonObject(http, '/v1/models');
    return json !== null && Array.isArray(json.data);
  },
  readLive,
  readLog: () => ({
    facts: {},
    startMarkerLines: [],
    startRegionFirstLines: [],
    startMarkerTimes: [],
    readyLine: null,
    crashes: [],
  }),
  readProcess: () => ({}),
  requestFor: openaiRequestFor,
  specCounters: () => null,
  whereToRead: (key) =>
    key === 'served_model_name' || key === 'context_length'
      ? 'GET /v1/models'
      : 'a generic OpenAI-compatible server exposes only /v1/models; read the server log or command line, or name the engine in the plan',
  serverCommand: null,
};
