// The `vllm` flavour: vLLM's HTTP surface (/version, /server_info in dev mode and the shared engine
// endpoints), its log lines with the periodic stats window, and its /metrics names.

import { UVICORN } from './connection-policy.js';
import {
  detokenizeRoute,
  emptyOkRoute,
  metricsRoute,
  sendEngineLoading,
  tokenizeRoute,
} from './engine-endpoints.js';
import { sglangCrashLines } from './engine-logs.js';
import type { FlavorSurface, StepLogContext, StepLogger } from './flavor.js';
import { sendJson, sendVllmError } from './http-util.js';
import { vllmMetrics } from './metrics-text.js';
import { openAiRoutes, vllmLengthError, vllmModelCard } from './openai-surface.js';
import { newCounters, type SchedulerCounters } from './request.js';
import { envFlagTrue } from './served-config.js';
import { vllmConfig } from './vllm-args.js';
import {
  vllmConfigText,
  vllmEngineStatsLine,
  vllmLoadBeginLines,
  vllmLoadLines,
  vllmReadyLines,
  vllmSpecDecodingLine,
  vllmStartLines,
} from './vllm-logs.js';

/** vLLM main after v0.18.0 (the surfaces follow upstream 7b5469024; see README.md). */
export const VLLM_VERSION = '0.18.0';

/** vllm's periodic engine and SpecDecoding stats lines, each over the window since the previous ones. */
function vllmStatsLogger(ctx: StepLogContext): StepLogger {
  // the first window starts from zeroed totals (only totals are differenced below)
  let prev: { simS: number; counters: SchedulerCounters } = { simS: 0, counters: newCounters() };
  return (kind) => {
    if (kind !== 'decode') return;
    const sch = ctx.scheduler();
    const c = ctx.served;
    const now = sch.simNowS();
    const cur: SchedulerCounters = {
      ...sch.counters,
      specAcceptedPerPos: [...sch.counters.specAcceptedPerPos],
    };
    const last = prev;
    prev = { simS: now, counters: cur };
    const spanS = Math.max(1e-9, now - last.simS);
    const was = last.counters;
    const at = new Date();
    ctx.write(
      vllmEngineStatsLine(at, ctx.pid, {
        promptTokS: (cur.promptTokensTotal - was.promptTokensTotal) / spanS,
        genTokS: (cur.generationTokensTotal - was.generationTokensTotal) / spanS,
        running: sch.numRunning(),
        waiting: sch.numQueued(),
        kvUsagePct: (100 * sch.kvUsedTokens()) / c.maxTotalNumTokens,
      }),
    );
    if (!c.specAlgorithm) return;
    const drafts = cur.specVerifyCt - was.specVerifyCt;
    if (drafts <= 0) return;
    const acceptedPerPos = Array.from(
      { length: c.specNumSteps ?? 0 },
      (_, i) => (cur.specAcceptedPerPos[i] ?? 0) - (was.specAcceptedPerPos[i] ?? 0),
    );
    ctx.write(
      vllmSpecDecodingLine(at, ctx.pid, {
        drafts,
        drafted: cur.specDraftTokensTotal - was.specDraftTokensTotal,
        accepted: cur.specAcceptedTotal - was.specAcceptedTotal,
        spanS,
        acceptedPerPos,
      }),
    );
  };
}

export const VLLM_SURFACE: FlavorSurface = {
  httpServer: UVICORN,
  deriveConfig: (profile, argv) => vllmConfig(profile, argv),
  publicPaths: ['/health', '/metrics'],
  sendError: sendVllmError,
  lengthError: vllmLengthError,
  sendLoading: (res, path) => sendEngineLoading(res, path, sendVllmError),
  routes: [
    ...openAiRoutes(vllmModelCard('vllm')),
    emptyOkRoute('/health'),
    tokenizeRoute(['/tokenize'], true),
    detokenizeRoute(['/detokenize'], (text) => ({ prompt: text })),
    metricsRoute(vllmMetrics),
    {
      methods: ['GET'],
      paths: ['/version'],
      handle: (_ctx, _body, res) => sendJson(res, 200, { version: VLLM_VERSION }),
    },
    {
      // dev-mode endpoint: an empty 200 once the prefix cache is reset
      methods: ['POST'],
      paths: ['/reset_prefix_cache'],
      enabled: (ctx) => envFlagTrue(ctx.env.VLLM_SERVER_DEV_MODE),
      handle(ctx, _body, res) {
        ctx.dropPrefixCache();
        res.writeHead(200, { 'content-length': 0 }).end();
      },
    },
    {
      methods: ['GET'],
      paths: ['/server_info'],
      enabled: (ctx) => envFlagTrue(ctx.env.VLLM_SERVER_DEV_MODE),
      handle(ctx, _body, res) {
        // serve/instrumentator/server_info.py: str(VllmConfig), the VLLM_* environment (no *KEY*), system_env
        const vllmEnv: Record<string, string> = {};
        for (const [k, v] of Object.entries(ctx.env))
          if (k.startsWith('VLLM_') && !k.includes('KEY') && v !== undefined) vllmEnv[k] = v;
        sendJson(res, 200, { vllm_config: vllmConfigText(ctx.served), vllm_env: vllmEnv, system_env: {} });
      },
    },
  ],
  logs: {
    start: (c, at, pid) => vllmStartLines(c, at, VLLM_VERSION, pid),
    startError: () => [],
    loading: (c, at, pid) => vllmLoadBeginLines(c, at, pid),
    loaded: (c, at, pid) => vllmLoadLines(c, at, pid),
    ready: vllmReadyLines,
    // the simulator has one crash traceback (SGLang's)
    crash: sglangCrashLines,
    defaultPort: 8000,
    stepLogger: vllmStatsLogger,
  },
};
