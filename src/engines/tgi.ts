// Hugging Face TGI adapter: OpenAI requests (final usage only, no ignore_eos), /info reads, the
// launcher's `Args { ... }` start-up line (Rust Debug format), and launcher flags / env.

import { redactDeep } from '../core/redact.js';
import { flagValue, parseFlagArgv } from './argv.js';
import { setFact, setFactIfAbsent, setNativeFacts } from './facts.js';
import { logicalLines, logReadingFromStarts, startIndices } from './logtext.js';
import { openAiRequest } from './openai-request.js';
import { getJsonObject, noteTruncatedBody, readModelEntries } from './probe.js';
import { type PyValue, parsePyKwargs } from './pyrepr.js';
import type {
  BuiltRequest,
  ConfigFacts,
  EngineAdapter,
  GenerationParams,
  LiveReading,
  LogReading,
  TargetHttp,
} from './types.js';

const ARGS_MARKER = 'Args {';
const READY_RE = /text_generation_router[^:]*:.*\bConnected\b/;
/** Launcher lines when a shard or the router dies during start-up. */
const TGI_FAILED_START: readonly RegExp[] = [
  /Shard \d+ failed to start/,
  /\bShardCannotStart\b/,
  /Webserver Crashed/,
];

export function tgiRequestFor(params: GenerationParams): BuiltRequest {
  // TGI's OpenAI routes have no ignore_eos; usage comes in a final chunk when include_usage is set.
  return openAiRequest('tgi', params, { continuousUsage: false, ignoreEosField: false });
}

/** Launcher argument names (flags, Args debug fields, /info fields) → normalised facts. */
function factsFromTgiArgs(args: Record<string, unknown>, source: string): ConfigFacts {
  const facts: ConfigFacts = {};
  setFact(facts, 'engine', 'tgi', source);
  setFact(facts, 'engine_version', args.version, source);
  setFact(facts, 'model', args.model_id, source);
  setFact(facts, 'served_model_name', args.served_model_name ?? args.model_id, source);
  setFact(facts, 'tp_size', args.num_shard, source);
  setFact(facts, 'dtype', args.dtype ?? args.model_dtype, source);
  setFact(facts, 'quantization', args.quantize, source);
  setFact(facts, 'max_running_requests', args.max_batch_size, source);
  setFact(facts, 'context_length', args.max_total_tokens, source);
  setFact(facts, 'speculative.num_steps', args.speculate, source);
  setNativeFacts(facts, 'tgi', redactDeep(args), source);
  return facts;
}

/** Unwraps Rust `Some(x)` → x recursively in parsed Debug output. */
function unwrapSome(v: PyValue): PyValue {
  if (Array.isArray(v)) return v.map(unwrapSome);
  if (v !== null && typeof v === 'object') {
    if (v.__call__ === 'Some' && Array.isArray(v.__args__) && v.__args__.length === 1)
      return unwrapSome(v.__args__[0]);
    const out: Record<string, PyValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = unwrapSome(x);
    return out;
  }
  return v;
}

/** Parses the body of Rust's `Args { a: 1, b: Some("x"), c: None }` Debug output. */
export function parseRustDebugStruct(body: string): { value: Record<string, unknown>; complete: boolean } {
  // `field: value` → `field=value` for fields at any nesting depth (string contents are left alone).
  let converted = '';
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (inString) {
      converted += ch;
      if (ch === '\\') converted += body[++i] ?? '';
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    const m = /^([A-Za-z_]\w*): /.exec(body.slice(i, i + 80));
    if (m && (i === 0 || /[{(,\s]/.test(body[i - 1]))) {
      converted += `${m[1]}=`;
      i += m[0].length - 1;
      continue;
    }
    converted += ch === '{' ? '(' : ch === '}' ? ')' : ch;
  }
  const parsed = parsePyKwargs(converted, 0, ')');
  return { value: unwrapSome(parsed.value) as Record<string, unknown>, complete: parsed.complete };
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

function readLog(text: string, path: string): LogReading {
  const lines = logicalLines(text);
  const starts = startIndices(lines, (t) => t.includes(ARGS_MARKER) && /text_generation_launcher/.test(t));
  const last = starts.length > 0 ? starts[starts.length - 1] : -1;
  let facts: ConfigFacts = {};
  if (last >= 0) {
    const l = lines[last];
    const parsed = parseRustDebugStruct(l.text.slice(l.text.indexOf(ARGS_MARKER) + ARGS_MARKER.length));
    facts = factsFromTgiArgs(parsed.value, `${path}:${l.line}`);
    if (!parsed.complete) setFact(facts, 'tgi.args_truncated', true, `${path}:${l.line}`);
  }
  return logReadingFromStarts(lines, starts, (t) => READY_RE.test(t), facts, starts, {
    failedStart: TGI_FAILED_START,
  });
}

/** Launcher options also read from the environment (clap `env`), by their upper-case names. */
const ENV_ARGS = [
  'MODEL_ID',
  'NUM_SHARD',
  'QUANTIZE',
  'DTYPE',
  'MAX_TOTAL_TOKENS',
  'MAX_BATCH_SIZE',
  'SPECULATE',
];

function readProcess(argv: string[], env: Record<string, string> | null, source: string): ConfigFacts {
  const { flags } = parseFlagArgv(argv, 1);
  const args: Record<string, unknown> = {};
  for (const name of ENV_ARGS) {
    const v = env?.[name];
    if (v !== undefined) args[name.toLowerCase()] = flagValue(v);
  }
  for (const [k, v] of Object.entries(flags)) args[k] = flagValue(v);
  return factsFromTgiArgs(args, source);
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
  readLog,
  readProcess,
  requestFor: tgiRequestFor,
  specCounters: () => null,
  whereToRead,
  serverCommand: /text-generation-launcher|text-generation-router/,
};
