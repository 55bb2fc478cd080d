// `/metrics` of the llamacpp flavour: llama-server's `llamacpp:` counter and gauge names (commit
// 3f545becc), speculative counters always present, per-position acceptance once a draft was verified.

import type { PrefixCacheStats } from './prefix-cache.js';
import type { Scheduler } from './request.js';
import type { ServedConfig } from './served-config.js';

/**
 * `/metrics` text: `llamacpp:` counters and gauges, speculative counters always, per position once drafted.
 * Prompt tokens are split as llama-server counts them: evaluated (prompt_tokens_total) and reused from
 * the slot's cache (prompt_tokens_cached_total).
 */
export function llamacppMetrics(c: ServedConfig, scheduler: Scheduler, cache: PrefixCacheStats): string {
  const k = scheduler.counters;
  const running = scheduler.numRunning();
  const queued = scheduler.numQueued();
  const lines: string[] = [];
  const m = (name: string, type: 'counter' | 'gauge', help: string, value: number) =>
    lines.push(
      `# HELP llamacpp:${name} ${help}`,
      `# TYPE llamacpp:${name} ${type}`,
      `llamacpp:${name} ${value}`,
    );
  m(
    'prompt_tokens_total',
    'counter',
    'Number of prompt tokens processed, excluding cached tokens',
    Math.max(0, k.promptTokensTotal - cache.hitTokens),
  );
  m(
    'prompt_tokens_cached_total',
    'counter',
    'Number of prompt tokens reused from the cache',
    cache.hitTokens,
  );
  m('tokens_predicted_total', 'counter', 'Number of generation tokens processed', k.generationTokensTotal);
  m(
    'n_decode_total',
    'counter',
    'Total number of llama_decode() calls, excluding speculative decoding and multimodal decoding',
    k.decodeSteps,
  );
  m(
    'spec_decode_num_draft_tokens_total',
    'counter',
    'Speculative: Total draft tokens generated',
    k.specDraftTokensTotal,
  );
  m(
    'spec_decode_num_accepted_tokens_total',
    'counter',
    'Speculative: Total draft tokens accepted by the target model',
    k.specAcceptedTotal,
  );
  m(
    'spec_decode_num_drafts_total',
    'counter',
    'Speculative: Total speculative decoding verification steps',
    k.specVerifyCt,
  );
  m('requests_processing', 'gauge', 'Number of requests processing', running);
  m('requests_deferred', 'gauge', 'Number of requests deferred', queued);
  if (c.specAlgorithm !== null && k.specVerifyCt > 0) {
    const name = 'llamacpp:spec_decode_num_accepted_tokens_per_pos_total';
    lines.push(`# HELP ${name} Accepted tokens per draft position`, `# TYPE ${name} counter`);
    for (let i = 0; i < (c.specNumSteps ?? 0); i++)
      lines.push(`${name}{position="${i}"} ${k.specAcceptedPerPos[i] ?? 0}`);
  }
  return `${lines.join('\n')}\n`;
}
