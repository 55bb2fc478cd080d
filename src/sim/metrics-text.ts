// Prometheus exposition text for /metrics with each engine's metric names and types
// (sglang: `sglang:` gauges and counters; vllm: `vllm:` names incl. speculative-decoding counters).

import type { PrefixCacheStats } from './prefix-cache.js';
import type { SchedulerCounters } from './request.js';
import type { ServedConfig } from './served-config.js';

export interface MetricsSnapshot {
  config: ServedConfig;
  counters: SchedulerCounters;
  running: number;
  queued: number;
  kvUsedTokens: number;
  processStartEpochS: number;
  avgAcceptLen: number;
  /** Prefix-cache lookups and hits in prompt tokens since start (zeros when the cache is off). */
  prefixCache: PrefixCacheStats;
}

function num(v: number): string {
  return Number.isFinite(v) ? String(v) : 'NaN';
}

function metric(
  lines: string[],
  name: string,
  type: 'gauge' | 'counter',
  help: string,
  samples: [string, number][],
) {
  const base = type === 'counter' ? name.replace(/_total$/, '') : name;
  lines.push(`# HELP ${base} ${help}`, `# TYPE ${base} ${type}`);
  for (const [labels, v] of samples) lines.push(`${name}${labels} ${num(v)}`);
}

function processMetrics(lines: string[], s: MetricsSnapshot): void {
  metric(
    lines,
    'process_start_time_seconds',
    'gauge',
    'Start time of the process since unix epoch in seconds.',
    [['', s.processStartEpochS]],
  );
}

export function sglangMetrics(s: MetricsSnapshot): string {
  const c = s.counters;
  // scheduler gauges carry the scheduler's labels; the token and request counters the tokenizer's
  const l = `{model_name="${s.config.servedModelName}",engine_type="unified",tp_rank="0",pp_rank="0",moe_ep_rank="0"}`;
  const tok = `{model_name="${s.config.servedModelName}"}`;
  const lines: string[] = [];
  processMetrics(lines, s);
  metric(lines, 'sglang:num_running_reqs', 'gauge', 'The number of running requests.', [[l, s.running]]);
  metric(lines, 'sglang:num_queue_reqs', 'gauge', 'The number of requests in the waiting queue.', [
    [l, s.queued],
  ]);
  metric(lines, 'sglang:num_used_tokens', 'gauge', 'The number of used tokens.', [[l, s.kvUsedTokens]]);
  metric(lines, 'sglang:token_usage', 'gauge', 'The token usage.', [
    [l, s.kvUsedTokens / s.config.maxTotalNumTokens],
  ]);
  metric(lines, 'sglang:gen_throughput', 'gauge', 'The generation throughput (token/s).', [
    [l, c.genThroughputTokS],
  ]);
  const pc = s.prefixCache;
  metric(lines, 'sglang:cache_hit_rate', 'gauge', 'The prefix cache hit rate.', [
    [l, pc.queryTokens > 0 ? pc.hitTokens / pc.queryTokens : 0],
  ]);
  metric(
    lines,
    'sglang:spec_accept_length',
    'gauge',
    'The average acceptance length of speculative decoding.',
    [[l, s.avgAcceptLen]],
  );
  metric(
    lines,
    'sglang:spec_accept_rate',
    'gauge',
    'The average acceptance rate of speculative decoding (`accepted tokens / total draft tokens` in batch).',
    [[l, s.config.specNumDraftTokens ? s.avgAcceptLen / s.config.specNumDraftTokens : 0]],
  );
  metric(lines, 'sglang:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', [
    [tok, c.promptTokensTotal],
  ]);
  // cached prompt tokens (radix-cache hits), counted like prompt_tokens_total: the hit rate over a span
  metric(lines, 'sglang:cached_tokens_total', 'counter', 'Number of cached prompt tokens.', [
    [tok, s.prefixCache.hitTokens],
  ]);
  metric(lines, 'sglang:generation_tokens_total', 'counter', 'Number of generation tokens processed.', [
    [tok, c.generationTokensTotal],
  ]);
  metric(lines, 'sglang:num_requests_total', 'counter', 'Number of requests processed.', [
    [tok, c.requestsFinished],
  ]);
  return `${lines.join('\n')}\n`;
}

export function vllmMetrics(s: MetricsSnapshot): string {
  const c = s.counters;
  const cfg = s.config;
  // labelnames ["model_name", "engine"] (v1/metrics/loggers.py), in that order
  const l = `{model_name="${cfg.servedModelName}",engine="0"}`;
  const lines: string[] = [];
  processMetrics(lines, s);
  metric(lines, 'vllm:num_requests_running', 'gauge', 'Number of requests in model execution batches.', [
    [l, s.running],
  ]);
  metric(lines, 'vllm:num_requests_waiting', 'gauge', 'Number of requests waiting to be processed.', [
    [l, s.queued],
  ]);
  metric(lines, 'vllm:kv_cache_usage_perc', 'gauge', 'KV-cache usage. 1 means 100 percent usage.', [
    [l, s.kvUsedTokens / cfg.maxTotalNumTokens],
  ]);
  const blocks = Math.floor(cfg.maxTotalNumTokens / 16);
  metric(lines, 'vllm:cache_config_info', 'gauge', 'Information of the LLMEngine CacheConfig', [
    [
      `{block_size="16",cache_dtype="${String(cfg.engineArgs.kv_cache_dtype ?? 'auto')}",enable_prefix_caching="True",gpu_memory_utilization="${String(cfg.engineArgs.gpu_memory_utilization ?? 0.9)}",num_gpu_blocks="${blocks}",num_cpu_blocks="None",engine="0"}`,
      1,
    ],
  ]);
  // v1 counters in tokens: queried prompt tokens and those found in the prefix cache
  metric(
    lines,
    'vllm:prefix_cache_queries_total',
    'counter',
    'Prefix cache queries, in terms of number of queried tokens.',
    [[l, s.prefixCache.queryTokens]],
  );
  metric(
    lines,
    'vllm:prefix_cache_hits_total',
    'counter',
    'Prefix cache hits, in terms of number of cached tokens.',
    [[l, s.prefixCache.hitTokens]],
  );
  metric(lines, 'vllm:prompt_tokens_total', 'counter', 'Number of prefill tokens processed.', [
    [l, c.promptTokensTotal],
  ]);
  metric(lines, 'vllm:generation_tokens_total', 'counter', 'Number of generation tokens processed.', [
    [l, c.generationTokensTotal],
  ]);
  metric(lines, 'vllm:request_success_total', 'counter', 'Count of successfully processed requests.', [
    [`{model_name="${cfg.servedModelName}",engine="0",finished_reason="length"}`, c.requestsFinished],
  ]);
  if (cfg.specAlgorithm) {
    metric(lines, 'vllm:spec_decode_num_drafts_total', 'counter', 'Number of spec decoding drafts.', [
      [l, c.specVerifyCt],
    ]);
    metric(lines, 'vllm:spec_decode_num_draft_tokens_total', 'counter', 'Number of draft tokens.', [
      [l, c.specDraftTokensTotal],
    ]);
    metric(lines, 'vllm:spec_decode_num_accepted_tokens_total', 'counter', 'Number of accepted tokens.', [
      [l, c.specAcceptedTotal],
    ]);
    const perPos: [string, number][] = [];
    for (let i = 0; i < (cfg.specNumSteps ?? 0); i++) {
      perPos.push([
        `{model_name="${cfg.servedModelName}",engine="0",position="${i}"}`,
        c.specAcceptedPerPos[i] ?? 0,
      ]);
    }
    metric(
      lines,
      'vllm:spec_decode_num_accepted_tokens_per_pos_total',
      'counter',
      'Accepted tokens per draft position.',
      perPos,
    );
  }
  return `${lines.join('\n')}\n`;
}
