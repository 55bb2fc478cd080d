// Hugging Face TGI adapter: OpenAI requests (final usage only, no ignore_eos) and /info reads; its
// launcher arguments are read in tgi-args.ts and its log in tgi-log.ts.

import { redactDeep } from '../core/redact.js';
import { setFactIfAbsent } from './facts.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, noteTruncatedBody, readModelEntries } from './probe.js';
import { factsFromTgiArgs, readTgiProcess } from './tgi-args.js';
import { readTgiLog } from './tgi-log.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  TargetHttp,
} from './types.js';

export function tgiRequestFor(params: GenerationParams): BuiltRequest {
  // TGI's OpenAI routes have no ignore_eos; usage comes in a final chunk when include_usage is set.
  return openAiRequest('tgi', params, { continuousUsage: false, ignoreEosField: false });
}

async function readLive(http: TargetHttp): Promise<LiveReading> {
  const raw: Record<string, unknown> = {};
  let facts: ConfigFacts = {};
  const info = await getJsonObject(http, '/info');
  if (info.json) {
    raw['/info'] = redactDeep(info.json);
    facts = factsFromTgiArgs(info.json, 'GET /info');
    noteTruncatedBody(facts, 'tgi', '/info', info.truncated);
    // /info carries the validated max_input_tokens (older: max_input_length).
    setFactIfAbsent(facts, 'tgi.max_input_tokens', info.json.max_input_length, 'GET /info');
  }
  const first = (await readModelEntries(http, raw))?.[0];
  if (first) setFactIfAbsent(facts, 'served_model_name', first.id, 'GET /v1/models');
  return { facts, raw };
}

function whereToRead(key: string): string | null {
  if (key === 'tp_size')
    return "--num-shard (or NUM_SHARD) on the launcher, or the launcher log's Args { num_shard: ... } line";
  if (key.startsWith('speculative.'))
    return "--speculate on the launcher, or the launcher log's Args { speculate: ... } line";
  if (key === 'max_running_requests')
    return '--max-batch-size on the launcher, or GET /info field max_batch_size';
  return "GET /info, or the launcher log's Args { ... } line";
}

export const tgiAdapter: EngineAdapter = {
  name: 'tgi',
  async detect(http) {
    const { json } = await getJsonObject(http, '/info');
    return (
      json !== null && typeof json.model_id === 'string' && ('max_total_tokens' in json || 'router' in json)
    );
  },
  readLive,
  readLog: readTgiLog,
  readProcess: readTgiProcess,
  requestFor: tgiRequestFor,
  specCounters: () => null,
  whereToRead,
  serverCommand: /text-generation-launcher|text-generation-router/,
};
