// llama.cpp (llama-server) adapter: OpenAI requests, /props, /health and /slots reads, its start-up
// log lines, and its short command-line flags.

import { redactDeep } from '../core/redact.js';
import { flagValue, parseFlagArgv } from './argv.js';
import { isRecord, setFact, setFactIfAbsent, setNativeFacts } from './facts.js';
import { linesAfterLastStart, logicalLines, logReadingFromStarts, startIndices } from './logtext.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, readModelEntries } from './probe.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  LogReading,
  TargetHttp,
} from './types.js';

/** `build: 4567 (abc1234) with cc ...` is the first line llama-server prints. */
const START_RE = /^build: \d+ \(/;
const READY_RE = /server is listening on|main: model loaded/;
const N_CTX_RE = /llama_context: n_ctx(?:_per_seq)? += (\d+)/;

const SHORT_FLAGS: Record<string, string> = {
  '-m': '--model',
  '-c': '--ctx-size',
  '-np': '--parallel',
  '-a': '--alias',
  '-md': '--model-draft',
  '-ngl': '--n-gpu-layers',
  '-t': '--threads',
  '-b': '--batch-size',
  '-ub': '--ubatch-size',
  '-fa': '--flash-attn',
  '-hf': '--hf-repo',
};

export function llamacppRequestFor(params: GenerationParams): BuiltRequest {
  // llama-server reads `ignore_eos` from the request body of its OpenAI-compatible endpoints too.
  return openAiRequest('llamacpp', params, { continuousUsage: false, ignoreEosField: true });
}

async function readLive(http: TargetHttp): Promise<LiveReading> {
  const raw: Record<string, unknown> = {};
  const facts: ConfigFacts = {};
  const props = await getJsonObject(http, '/props');
  if (props.json) {
    const p = props.json;
    const src = 'GET /props';
    raw['/props'] = redactDeep({
      ...p,
      chat_template: p.chat_template === undefined ? undefined : '<omitted>',
    });
    setFact(facts, 'engine', 'llamacpp', src);
    setFact(facts, 'engine_version', p.build_info, src);
    setFact(facts, 'model', p.model_path, src);
    if (typeof p.model_alias === 'string' && p.model_alias !== '')
      setFact(facts, 'served_model_name', p.model_alias, src);
    setFact(facts, 'max_running_requests', p.total_slots, src);
    const gen = isRecord(p.default_generation_settings) ? p.default_generation_settings : {};
    setFact(facts, 'context_length', gen.n_ctx, src);
    const native: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(p))
      if (k !== 'chat_template' && k !== 'default_generation_settings') native[k] = v;
    setNativeFacts(facts, 'llamacpp', redactDeep(native), src);
    if (isRecord(gen.params)) setNativeFacts(facts, 'llamacpp.params', gen.params, src);
  }
  const health = await getJsonObject(http, '/health');
  if (health.doc.status !== null) {
    raw['/health'] = health.json ?? { status: health.doc.status };
    setFact(facts, 'llamacpp.health_status', health.doc.status, 'GET /health');
  }
  const slots = await http.request('/slots', { method: 'GET' });
  if (slots.status === 200 && Array.isArray(slots.json)) {
    raw['/slots'] = slots.json.map((s) =>
      isRecord(s) ? { id: s.id, n_ctx: s.n_ctx, is_processing: s.is_processing } : s,
    );
    setFactIfAbsent(facts, 'max_running_requests', slots.json.length, 'GET /slots');
  }
  const first = (await readModelEntries(http, raw))?.[0];
  if (first) setFactIfAbsent(facts, 'served_model_name', first.id, 'GET /v1/models');
  return { facts, raw };
}

function readLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const starts = startIndices(lines, (t) => START_RE.test(t));
  const last = starts.length > 0 ? starts[starts.length - 1] : -1;
  const facts: ConfigFacts = {};
  if (last >= 0) {
    setFact(facts, 'engine', 'llamacpp', `${path}:${lines[last].line}`);
    const build = /^build: (\d+) \(([^)]*)\)/.exec(lines[last].text);
    if (build) setFact(facts, 'engine_version', `b${build[1]}-${build[2]}`, `${path}:${lines[last].line}`);
    for (const l of linesAfterLastStart(lines, starts)) {
      const m = N_CTX_RE.exec(l.text);
      if (m) setFactIfAbsent(facts, 'llamacpp.n_ctx', Number(m[1]), `${path}:${l.line}`);
    }
  }
  return logReadingFromStarts(lines, starts, (t) => READY_RE.test(t), facts);
}

function readProcess(argv: string[], _env: Record<string, string> | null, source: string): ConfigFacts {
  const expanded = argv.map((t) => SHORT_FLAGS[t] ?? t);
  const { flags } = parseFlagArgv(expanded, 1);
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'llamacpp', source);
  const v = (k: string) => (k in flags ? flagValue(flags[k]) : undefined);
  setFact(facts, 'model', v('model') ?? v('hf_repo'), source);
  setFact(facts, 'served_model_name', v('alias'), source);
  setFact(facts, 'max_running_requests', v('parallel'), source);
  setFact(facts, 'speculative.draft_model', v('model_draft'), source);
  const native: Record<string, unknown> = {};
  for (const k of Object.keys(flags)) native[k] = v(k);
  setNativeFacts(facts, 'llamacpp', redactDeep(native), source);
  return facts;
}

function whereToRead(key: string): string | null {
  if (key === 'context_length') return 'GET /props field default_generation_settings.n_ctx (per slot)';
  if (key === 'max_running_requests')
    return 'GET /props field total_slots, or -np/--parallel on the command line';
  if (key === 'engine_version')
    return 'GET /props field build_info, or the first log line "build: N (commit)"';
  if (key.startsWith('speculative.')) return 'the llama-server command line (-md/--model-draft, --draft-max)';
  return null;
}

export const llamacppAdapter: EngineAdapter = {
  name: 'llamacpp',
  async detect(http) {
    const { json } = await getJsonObject(http, '/props');
    return json !== null && ('default_generation_settings' in json || 'total_slots' in json);
  },
  readLive,
  readLog,
  readProcess,
  requestFor: llamacppRequestFor,
  specCounters: () => null,
  whereToRead,
  serverCommand: /\bllama-server\b/,
};
