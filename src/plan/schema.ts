// The plan schema: the single place where every plan option, its default and its documentation live.
// `benchgate schema` prints the JSON Schema generated from this file. Keys are snake_case as users write
// them in YAML. Loading with source positions is in load.ts; this file only describes shapes.

import { z } from 'zod';
import { parseDurationS } from '../core/clock.js';
import {
  MAX_GPU_MEMORY_MIB,
  MAX_GPUS,
  MAX_GRACE_S,
  MAX_LEVEL_DURATION_S,
  MAX_LIST_ITEMS,
  MAX_NAME_CHARS,
  MAX_PAUSE_MS,
  MAX_PREFIX_GROUPS,
  MAX_RATE,
  MAX_REQUEST_TIMEOUT_S,
  MAX_REQUESTS_PER_LEVEL,
  MAX_TEMPERATURE,
  MAX_TOKENS,
  MAX_TURNS,
  MAX_WAIT_S,
  MAX_WORKERS,
} from './bounds.js';
import { losslessSchema } from './lossless-schema.js';
import { SLO_PRESET_NAMES } from './slo-presets.js';

const positiveInt = z.number().int().positive();
const tokens = positiveInt.max(MAX_TOKENS);
const requestCount = positiveInt.max(MAX_REQUESTS_PER_LEVEL);
const pauseMs = z.number().nonnegative().max(MAX_PAUSE_MS);
const timeoutS = z.number().positive().max(MAX_REQUEST_TIMEOUT_S);

/** A duration of at most `maxS` seconds (timers cannot wait longer, and no run needs to). */
const durationUpTo = (maxS: number) =>
  z
    .union([
      // parseDurationS is the parser the run uses, so whatever validates here also parses there
      // (a regex let "15m30" through, which then failed to parse).
      z
        .string()
        .refine((v) => parseDurationS(v) !== null, 'expected a duration such as "90s", "15m" or "1h30m"')
        .refine((v) => (parseDurationS(v) ?? 0) <= maxS, `at most ${maxS} s (${maxS / 3600} h)`),
      z.number().nonnegative().max(maxS),
    ])
    .describe(
      `A duration of at most ${maxS / 3600} h: seconds as a number, or a string such as "250ms", "90s", "15m", "1h30m".`,
    );

export const tokenLengthSchema = z
  .union([
    z.object({ fixed: tokens.describe('Every request uses exactly N tokens.') }).strict(),
    z
      .object({
        uniform: z.tuple([tokens, tokens]).describe('Uniformly drawn from a to b tokens, both inclusive.'),
      })
      .strict()
      .refine((v) => v.uniform[0] <= v.uniform[1], { message: 'uniform: [a, b] needs a <= b' }),
    z
      .object({
        normal: z
          .object({
            mean: z.number().positive().max(MAX_TOKENS).describe('Mean length in tokens.'),
            std: z.number().nonnegative().max(MAX_TOKENS).describe('Standard deviation in tokens.'),
          })
          .strict()
          .describe('Normally distributed length, rounded and clamped to >= 1.'),
      })
      .strict(),
  ])
  .describe(
    'A token length distribution: { fixed: N }, { uniform: [a, b] } (inclusive) or { normal: { mean, std } } (clamped to >= 1).',
  );

/**
 * A server's base URL. What vLLM and OpenAI users paste ends in `/v1` (the API's prefix, which every
 * request path here already carries), so a trailing `/v1` and trailing slashes are taken off: the same
 * server is reached with or without them.
 */
const baseUrl = z.url().transform((u) => u.replace(/\/+$/, '').replace(/\/v1$/i, ''));

export const targetSchema = z
  .object({
    url: baseUrl
      .optional()
      .describe(
        'Base URL of the server, e.g. http://127.0.0.1:30000 (a trailing /v1 is accepted and dropped). Omit to benchmark the embedded simulator.',
      ),
    engine: z
      .enum(['auto', 'sglang', 'vllm', 'llamacpp', 'tgi', 'openai'])
      .default('auto')
      .describe('Engine; auto detects it from its endpoints.'),
    api: z
      .enum(['completions', 'chat', 'native'])
      .default('completions')
      .describe(
        'completions: POST /v1/completions; chat: /v1/chat/completions; native: SGLang POST /generate.',
      ),
    model: z.string().optional().describe('Model name to send; default: the first id of GET /v1/models.'),
    headers: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra HTTP headers. Never written to results (values are redacted).'),
    api_key_env: z
      .string()
      .optional()
      .describe(
        'Environment variable holding the API key (sent as Bearer). The key itself is never written anywhere.',
      ),
    timeouts: z
      .object({
        connect_s: timeoutS.default(10).describe('Connect timeout.'),
        ttft_s: timeoutS.default(300).describe('Max time from send to the first token.'),
        stall_s: timeoutS
          .default(60)
          .describe(
            'Max gap between two chunks, counted from the first token chunk: before it only ttft_s applies.',
          ),
        total_s: timeoutS.default(1800).describe('Max time for a whole request.'),
      })
      .strict()
      .prefault({})
      .describe(
        'Per-request timeouts in seconds; a request exceeding one is recorded as failed with its code.',
      ),
  })
  .strict()
  .describe('The server to benchmark and how to talk to it.');

export const sharedPrefixSchema = z
  .object({
    groups: positiveInt
      .max(MAX_PREFIX_GROUPS)
      .describe('G: number of distinct shared prefixes; request i belongs to group i mod G.'),
    prefix_tokens: tokens.describe('P: tokens of the prefix every request of a group shares.'),
    expected_hit_rate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        'Prefix-cache hit rate you expect (cached / prompt tokens over measured requests). Default: P / (P + mean suffix), the rate of a cache that keeps every prefix. Reported beside the rate the server observed.',
      ),
  })
  .strict()
  .describe(
    "kind: shared_prefix. Each prompt is its group's prefix of P tokens plus a unique suffix of input_tokens tokens. One priming request per group is sent before the level and not measured.",
  );

export const traceSchema = z
  .object({
    path: z.string().describe('The trace file.'),
    format: z
      .enum(['mooncake', 'azure'])
      .optional()
      .describe(
        'mooncake: JSONL with timestamp (ms), input_length, output_length, hash_ids. azure: Azure LLM inference trace CSV with TIMESTAMP, ContextTokens, GeneratedTokens. Default: by extension (.jsonl mooncake, .csv azure).',
      ),
    block_tokens: tokens
      .default(512)
      .describe(
        'Tokens per hash id (Mooncake traces hash 512-token blocks); equal hash ids become equal prompt text.',
      ),
  })
  .strict()
  .describe(
    'kind: trace (with load.kind: rate). Each entry of load.levels is a speed factor: level 2 replays the trace twice as fast (gaps halved). Open loop: each request is sent at its scaled timestamp whatever the server does; a late send shows as queue time. load.requests caps the requests replayed; warmup is not used.',
  );

export const thinkTimeSchema = z
  .union([
    pauseMs.describe('Every think time is exactly this many ms.'),
    z
      .object({ fixed: pauseMs.describe('Think time in ms.') })
      .strict()
      .describe('Every think time is exactly this many ms (the form token lengths use).'),
    z
      .object({
        uniform: z.tuple([pauseMs, pauseMs]).describe('Uniformly drawn from a to b ms.'),
      })
      .strict()
      .refine((v) => v.uniform[0] <= v.uniform[1], { message: 'uniform: [a, b] needs a <= b' }),
    z
      .object({ exponential: z.number().positive().max(MAX_PAUSE_MS).describe('Mean think time in ms.') })
      .strict()
      .describe('Exponentially distributed (memoryless users) with this mean.'),
  ])
  .describe(
    'Think time in ms: N or { fixed: N }, { uniform: [a, b] } or { exponential: mean }; seeded per user.',
  );

export const multiTurnSchema = z
  .object({
    turns: positiveInt
      .max(MAX_TURNS)
      .describe('T: turns per conversation; after T turns the user starts a new conversation.'),
    think_time_ms: thinkTimeSchema
      .default(0)
      .describe(
        'Time a user waits after a reply before sending the next turn (not queue time, not latency: the next turn is due when it ends).',
      ),
  })
  .strict()
  .describe(
    'kind: multi_turn (with target.api: chat and load.kind: concurrency). Each of the N streams is one user holding a conversation: every turn sends the whole history (earlier user messages and the replies received, verbatim) plus a new user message of input_tokens tokens, asking for output_tokens. A level counts turns; a failed turn ends its conversation.',
  );

export const workloadSchema = z
  .object({
    kind: z
      .enum(['prompts', 'sharegpt', 'shared_prefix', 'trace', 'multi_turn'])
      .default('prompts')
      .describe(
        'prompts: independent single-turn prompts from `dataset` (random, ShareGPT first turns or JSONL). sharegpt: ShareGPT conversations with the recorded reply lengths as max_tokens (see output_lengths). shared_prefix: groups of prompts sharing a prefix (see shared_prefix). trace: a timestamped production trace replayed open loop (see trace). multi_turn: users holding conversations whose history grows turn by turn (see multi_turn).',
      ),
    output_lengths: z
      .enum(['recorded', 'fixed'])
      .default('recorded')
      .describe(
        "kind: sharegpt. recorded: max_tokens is the token length of the conversation's first reply (ignore_eos then defaults to true); fixed: drawn from output_tokens.",
      ),
    shared_prefix: sharedPrefixSchema.optional(),
    trace: traceSchema.optional(),
    multi_turn: multiTurnSchema.optional(),
    dataset: z
      .string()
      .default('random')
      .describe(
        '"random", a ShareGPT-style JSON file, or a JSONL file of prompts ({"prompt": ...} per line). Like every file a plan names (trace, tokenizer, lossless reference), checked before anything runs: a regular file of at most 512 MiB (bounds.ts MAX_PLAN_DATA_FILE_BYTES) that parses.',
      ),
    input_tokens: tokenLengthSchema
      .default({ fixed: 1024 })
      .describe(
        "Prompt length in tokens (random dataset), or a cap for file datasets; kind multi_turn: the length of each turn's new user message.",
      ),
    output_tokens: tokenLengthSchema
      .default({ fixed: 256 })
      .describe('Requested output tokens (max_tokens).'),
    ignore_eos: z
      .boolean()
      .optional()
      .describe(
        'Ask the server to ignore EOS so outputs have the requested length. Default: true for random prompts and for kind: sharegpt with recorded output lengths, false otherwise.',
      ),
    temperature: z.number().min(0).max(MAX_TEMPERATURE).default(0).describe('Sampling temperature.'),
    seed: z.number().int().default(1).describe('Seed for prompts, lengths and arrival schedules.'),
    salt: z
      .number()
      .int()
      .min(1)
      .max(2 ** 31 - 1)
      .optional()
      .describe(
        "Changes the prompts' words (never their lengths or structure) so a run sends prompts no server has cached. Default: a fresh salt per run, recorded in the manifest's plan; set it (or --salt) to replay a run exactly.",
      ),
    tokenizer: z
      .string()
      .optional()
      .describe('Path to a local tokenizer.json, used when the server has no /tokenize endpoint.'),
  })
  .strict()
  .superRefine((w, ctx) => {
    const need = (key: 'shared_prefix' | 'trace' | 'multi_turn', kind: string): void => {
      if (w.kind === kind && w[key] === undefined)
        ctx.addIssue({ code: 'custom', path: [key], message: `workload.kind ${kind} needs a ${key}: block` });
      if (w.kind !== kind && w[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `${key}: is only used with workload.kind ${kind}`,
        });
    };
    need('shared_prefix', 'shared_prefix');
    need('trace', 'trace');
    need('multi_turn', 'multi_turn');
    if (w.kind === 'multi_turn' && w.dataset !== 'random')
      ctx.addIssue({
        code: 'custom',
        path: ['dataset'],
        message:
          'workload.kind multi_turn writes its own user messages (random words of input_tokens): leave dataset: random',
      });
    if (w.kind === 'sharegpt' && (w.dataset === 'random' || w.dataset.endsWith('.jsonl')))
      ctx.addIssue({
        code: 'custom',
        path: ['dataset'],
        message: 'workload.kind sharegpt needs dataset: a ShareGPT JSON file (conversations with replies)',
      });
  })
  .describe('What each request asks for: prompts and token lengths, by workload kind.');

export const sloSearchSchema = z
  .object({
    over: z
      .enum(['rate', 'concurrency'])
      .default('rate')
      .describe('What the search varies: open-loop request rate (req/s) or closed-loop concurrency.'),
    start: z.number().positive().max(MAX_RATE).default(1).describe('First value probed.'),
    min: z.number().positive().max(MAX_RATE).default(0.1).describe('Lowest value the search may probe.'),
    max: z.number().positive().max(MAX_RATE).default(1024).describe('Highest value the search may probe.'),
    precision: z
      .number()
      .positive()
      .max(MAX_RATE)
      .default(0.5)
      .describe(
        'Stop when the bracket [highest pass, lowest fail] is at most this wide (concurrency: >= 1).',
      ),
    growth: z
      .number()
      .gt(1)
      .max(1000)
      .default(2)
      .describe('Bracketing factor between probes before the first fail/pass.'),
    max_probes: positiveInt.max(MAX_LIST_ITEMS).default(12).describe('At most this many probes (levels).'),
    share: z
      .number()
      .gt(0)
      .max(1)
      .default(0.99)
      .describe('Share of measured requests that must meet every SLO for a probe to pass.'),
    preset: z
      .enum(SLO_PRESET_NAMES)
      .optional()
      .describe(
        'Named MLPerf latency constraints (TTFT and TPOT at the 99th percentile), used for any SLO the plan does not set.',
      ),
    tolerance: z
      .number()
      .gt(0)
      .max(1)
      .default(0.95)
      .describe(
        'A probe passes only if it achieved at least this share of its offered load over its steady window (rate: completions/s vs arrivals/s; concurrency: requests held in flight).',
      ),
    max_probe_requests: positiveInt
      .default(10000)
      .describe(
        'Bound on the measured requests of one probe. A probe is sized to reach the sample floor the share needs (662 for 99%, as the p99 tail rule); a probe this bound cuts short may be inconclusive.',
      ),
    max_probe_s: z
      .number()
      .positive()
      .default(300)
      .describe(
        'Bound on the seconds one probe sends for: a rate probe sends at most rate × this many requests, and every probe stops sending after it.',
      ),
  })
  .strict()
  .refine((v) => v.min <= v.max, { message: 'slo_search: min must be <= max' })
  .describe(
    'load.kind: slo_search. Each probe runs as one level, sized to reach the sample floor of `share` (at least load.requests; load.duration does not apply), within max_probe_requests and max_probe_s.',
  );

export const loadSchema = z
  .object({
    kind: z
      .enum(['concurrency', 'rate', 'slo_search'])
      .default('concurrency')
      .describe(
        'concurrency: closed loop, N requests in flight, a new one as each finishes. rate: open loop, arrivals on a seeded schedule regardless of completions. slo_search: probe levels (see slo_search) to find the highest load meeting the SLOs.',
      ),
    slo_search: sloSearchSchema.optional(),
    levels: z
      .array(z.number().positive())
      .min(1)
      .default([1, 4, 16])
      .describe('Concurrency levels (integers) or offered rates in requests/s.'),
    arrival: z
      .enum(['constant', 'poisson', 'gamma'])
      .default('poisson')
      .describe('Open-loop inter-arrival distribution (kind: rate).'),
    burstiness: z
      .number()
      .min(0.01)
      .max(100)
      .default(1)
      .describe('Gamma shape for arrival: gamma (1 = Poisson; <1 burstier, >1 smoother).'),
    max_concurrency: positiveInt
      .optional()
      .describe('Open loop: cap on requests in flight; time waited on the cap is recorded as queue time.'),
    requests: requestCount
      .optional()
      .describe('Measured requests per level. Default 100 when no duration is given.'),
    duration: durationUpTo(MAX_LEVEL_DURATION_S)
      .optional()
      .describe('Per-level duration; with requests, the level ends at whichever comes first.'),
    cache: z
      .enum(['keep', 'flush'])
      .default('keep')
      .describe(
        "The server's prefix cache before each level: keep it, or flush it where the engine offers a way (SGLang POST /flush_cache; vLLM POST /reset_prefix_cache with VLLM_SERVER_DEV_MODE=1; llama.cpp slot erase with --slot-save-path). What was done, or why it could not be, is recorded with the level's cache evidence.",
      ),
    warmup: z
      .number()
      .int()
      .nonnegative()
      .max(MAX_REQUESTS_PER_LEVEL)
      .default(0)
      .describe('Warmup requests per level, sent first and excluded from metrics.'),
    trials: positiveInt
      .max(100)
      .default(1)
      .describe(
        'Repeated trials: the whole sweep runs this many times (levels 1 2 3, then 1 2 3 again), each repetition of a level stored as a level of its own with its trial number; compare resamples trials, then requests within them, so run-to-run variance is inside the intervals. In the matrix (configs:) the configs run in rounds, A B then A B again, each visit a full launch and tear-down: N rounds × K configs = N·K launches. Not with kind: slo_search.',
      ),
    workers: z
      .union([positiveInt.max(MAX_WORKERS), z.literal('auto')])
      .default(1)
      .describe(
        'Worker threads that send the load (auto = CPU cores − 1, at least 1). Each sends an exact share of every level (closed loop: streams and requests; open loop: its arrivals of the one seeded schedule, from one common start); this thread alone writes the records. 1 = one event loop, no threads.',
      ),
    backoff: z
      .object({
        initial_ms: pauseMs
          .default(100)
          .describe('Back-off after the first such failure in a row (ms); 0 turns back-off off.'),
        max_ms: pauseMs.default(2000).describe('Cap on one back-off wait (ms).'),
      })
      .strict()
      .prefault({})
      .describe(
        'After a connect error, HTTP 5xx/429 or a reset, the next send waits min(max_ms, initial_ms·2^(k−1)) for the k-th such failure in a row, times a jitter in [0.5, 1]; a success resets k. Closed loop: the worker waits before its next send. Open loop: the schedule is kept and requests due during the wait are held; the hold counts as queue time.',
      ),
    error_stop: z
      .object({
        rate: z
          .number()
          .min(0)
          .max(1)
          .default(0.5)
          .describe('A level stops when more than this fraction of its requests failed (1 = never).'),
        min_requests: requestCount
          .default(20)
          .describe('Complete requests (warmup included) before the rate is judged.'),
      })
      .strict()
      .prefault({})
      .describe(
        'Error-rate stop: the level stops sending (BG_E_LEVEL_ERROR_RATE), keeps its records and is marked invalid. When no request of the level succeeded the server is taken as dead and later levels are not run.',
      ),
  })
  .strict()
  .superRefine((l, ctx) => {
    if (l.kind === 'slo_search' && l.slo_search === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['slo_search'],
        message: 'load.kind slo_search needs a slo_search: block',
      });
    if (l.kind !== 'slo_search' && l.slo_search !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['slo_search'],
        message: 'slo_search: is only used with load.kind slo_search',
      });
    if (l.slo_search?.over === 'concurrency' && l.slo_search.precision < 1)
      ctx.addIssue({
        code: 'custom',
        path: ['slo_search', 'precision'],
        message: 'a concurrency search probes whole numbers: precision must be >= 1',
      });
  })
  .describe(
    'How load is applied: closed loop (kind: concurrency), open loop (kind: rate), level by level, or a search for the highest load meeting the SLOs (kind: slo_search).',
  );

const sloMs = z
  .number()
  .positive()
  .max(MAX_REQUEST_TIMEOUT_S * 1000);

export const sloSchema = z
  .object({
    ttft_ms: sloMs.optional().describe('Max time to first token (ms), from the send.'),
    tpot_ms: sloMs.optional().describe('Max time per output token after the first (ms).'),
    e2e_ms: sloMs.optional().describe('Max end-to-end latency (ms), from the send to the last token.'),
  })
  .strict()
  .describe('Service-level objectives for goodput: a request counts when it meets every one given.');

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const expectationSchema = z
  .union([
    scalar,
    z.object({ equals: scalar.describe('The value must equal this.') }).strict(),
    z.object({ one_of: z.array(scalar).min(1).describe('The value must equal one of these.') }).strict(),
    z.object({ '>=': z.number().describe('The value must be at least this.') }).strict(),
    z.object({ '<=': z.number().describe('The value must be at most this.') }).strict(),
    z
      .object({ regex: z.string().describe('The value, as text, must match this regular expression.') })
      .strict(),
    z.object({ present: z.literal(true).describe('The key must be present, whatever its value.') }).strict(),
    z.object({ absent: z.literal(true).describe('The key must not be present.') }).strict(),
  ])
  .describe(
    'An expectation: a bare value (must equal it) or one of { equals }, { one_of: [...] }, { ">=": n }, { "<=": n }, { regex }, { present: true }, { absent: true }.',
  );

export const logExpectationSchema = z
  .object({
    path: z.string().describe('Log file on the host.'),
    contains: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Text (or texts) some line must contain.'),
    regex: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Regular expression(s) some line must match.'),
    must_not_contain: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .describe('Text (or texts) no line may contain.'),
    required: z
      .boolean()
      .default(true)
      .describe('false: a failed assertion warns instead of blocking the run.'),
  })
  .strict()
  .describe('Assertions judged only on the lines of the current server start.');

export const expectSchema = z
  .object({
    config: z
      .record(z.string(), expectationSchema)
      .default({})
      .describe(
        'Expectations on normalised keys (tp_size, speculative.topk, overlap_schedule, …) or engine-native keys (sglang.disable_overlap_schedule).',
      ),
    logs: z
      .array(logExpectationSchema)
      .max(MAX_LIST_ITEMS)
      .default([])
      .describe('Assertions on server log files.'),
    wait: durationUpTo(MAX_WAIT_S)
      .optional()
      .describe('How long to wait for the server to become healthy (model load). Default: no waiting.'),
    smoke: z
      .boolean()
      .default(true)
      .describe("Send one smoke generation with the run's own request parameters."),
  })
  .strict()
  .describe('What must be true of the server before load is sent.');

export const toolSchema = z
  .object({
    path: z.string().describe('Path of the tool (script or executable) on the host.'),
    sha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal digits')
      .optional()
      .describe('Expected SHA-256 of the file, to catch a different version.'),
    help: z
      .string()
      .optional()
      .describe(
        'Command printing the tool\'s help; {path} is replaced by the quoted path, e.g. "python3 {path} --help".',
      ),
    accepts: z
      .array(z.string().regex(/^-{1,2}[A-Za-z0-9][\w-]*$/, 'a flag such as --num-requests'))
      .default([])
      .describe('Flags the tool must accept (checked against its help output).'),
    dry_run: z
      .string()
      .optional()
      .describe('A command that must exit 0, used instead of (or besides) help parsing.'),
    required: z
      .boolean()
      .default(true)
      .describe('false: a failed tool check warns instead of blocking the run.'),
  })
  .strict()
  .describe('A tool the run depends on, and the interface it must offer.');

export const gpusSchema = z
  .object({
    count: positiveInt.max(MAX_GPUS).optional().describe('Number of GPUs that must be visible.'),
    model: z.string().optional().describe('Substring or regex (/.../) the GPU name must match.'),
    max_memory_used_mib: z
      .number()
      .nonnegative()
      .max(MAX_GPU_MEMORY_MIB)
      .optional()
      .describe('Before the run, memory in use per GPU must not exceed this (MiB).'),
    no_foreign_processes: z
      .boolean()
      .default(false)
      .describe('Fail when a process other than the server holds the GPUs.'),
    topology: z.enum(['nvlink', 'pcie']).optional().describe('GPU interconnect the host must have.'),
    required: z
      .boolean()
      .default(true)
      .describe('false: failed GPU checks warn instead of blocking the run.'),
  })
  .strict()
  .describe('What the host GPUs must look like before the run.');

/** A host value without a default: a config's launch.host must not default to "local" (it inherits the plan's). */
const hostSpecSchema = z
  .string()
  .regex(/^(local|ssh:\/\/([^@/\s]+@)?[^:/\s]+(:\d+)?)$/, 'either "local" or ssh://user@host:port');

export const telemetrySchema = z
  .object({
    interval_ms: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(1000)
      .describe('How often /metrics and nvidia-smi are sampled during every level, ms.'),
    gpus: z
      .boolean()
      .default(true)
      .describe(
        "Sample nvidia-smi (utilisation, memory, power, clocks) on the target's host during every level.",
      ),
  })
  .strict()
  .describe(
    'Server and GPU telemetry recorded beside every level (telemetry-level-NN.json, gpu-level-NN.json).',
  );

export const hostSchema = hostSpecSchema
  .default('local')
  .describe('Where server commands run and files are read: "local" or ssh://user@host:port.');

export const launchSchema = z
  .object({
    command: z
      .union([z.string(), z.array(z.string()).min(1)])
      .describe('Executable (string) or argv array. A string is split on whitespace only; no shell.'),
    args: z.array(z.string()).default([]).describe('Arguments appended to the command.'),
    env: z
      .record(z.string(), z.string())
      .default({})
      .describe('Extra environment variables for the server process.'),
    cwd: z.string().optional().describe('Working directory of the server process.'),
    host: hostSpecSchema
      .optional()
      .describe("Where this config's server runs and its checks read; default: the plan's host."),
  })
  .strict()
  .describe("How to start this configuration's server.");

export const configSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][\w.-]*$/, 'letters, digits, ".", "_" and "-"')
      .max(MAX_NAME_CHARS)
      .describe('Unique name of the configuration; results are stored and compared under it.'),
    launch: launchSchema.optional(),
    stop: z
      .object({
        signal: z
          .enum(['SIGTERM', 'SIGINT', 'SIGKILL'])
          .default('SIGTERM')
          .describe('Signal sent to stop the server.'),
        command: z.string().optional().describe('Command to run instead of sending a signal.'),
        grace: durationUpTo(MAX_GRACE_S)
          .default('30s')
          .describe('Time to wait for a clean exit before SIGKILL.'),
      })
      .strict()
      .prefault({})
      .describe("How to stop this configuration's server."),
    url: baseUrl
      .optional()
      .describe("URL of this config's server (a trailing /v1 is dropped); default: the plan target URL."),
    log: z
      .string()
      .optional()
      .describe('Server log path (launch output is also captured into the run directory).'),
    ready_timeout: durationUpTo(MAX_WAIT_S)
      .default('15m')
      .describe('How long the launched server may take to become ready.'),
    expect: expectSchema
      .partial()
      .optional()
      .describe("Expectations for this configuration, merged over the plan's."),
  })
  .strict()
  .describe('One server configuration of a matrix run.');

export const planSchema = z
  .object({
    name: z
      .string()
      .min(1)
      .max(MAX_NAME_CHARS)
      .optional()
      .describe('Run name; default: the plan file name or "bench".'),
    target: targetSchema.prefault({}),
    workload: workloadSchema.prefault({}),
    load: loadSchema.prefault({}),
    slo: sloSchema.default({}),
    percentiles: z
      .array(z.number().gt(0).lt(100))
      .max(100)
      .default([50, 90, 95, 99])
      .describe('Latency percentiles to report (linear interpolation), each within (0, 100).'),
    output: z
      .string()
      .regex(/\S/, 'a directory path, found an empty string')
      .default('results')
      .describe('Results directory; each run gets <output>/<run-id>/.'),
    host: hostSchema,
    expect: expectSchema.prefault({}),
    tools: z
      .array(toolSchema)
      .max(MAX_LIST_ITEMS)
      .default([])
      .describe('Tools the run depends on, checked before load.'),
    gpus: gpusSchema.optional(),
    varies: z
      .array(z.string())
      .default([])
      .describe('Config keys this plan varies on purpose; compare warns about differences in any other key.'),
    configs: z
      .array(configSchema)
      .max(MAX_LIST_ITEMS)
      .optional()
      .describe('Matrix: server configurations that `benchgate run` launches in turn.'),
    lossless: losslessSchema.optional(),
    telemetry: telemetrySchema.prefault({}),
  })
  .strict();

export type Plan = z.infer<typeof planSchema>;
export type PlanInput = z.input<typeof planSchema>;
export type TokenLength = z.infer<typeof tokenLengthSchema>;
export type Workload = z.infer<typeof workloadSchema>;
export type ThinkTime = z.infer<typeof thinkTimeSchema>;
export type SloSearchPlan = z.infer<typeof sloSearchSchema>;
export type Expectation = z.infer<typeof expectationSchema>;
export type LogExpectation = z.infer<typeof logExpectationSchema>;
export type ToolSpec = z.infer<typeof toolSchema>;
export type GpuSpec = z.infer<typeof gpusSchema>;
export type ConfigSpec = z.infer<typeof configSchema>;
export type LaunchSpec = z.infer<typeof launchSchema>;

export function planJsonSchema(): unknown {
  return z.toJSONSchema(planSchema, { io: 'input', unrepresentable: 'any' });
}
