// Detection, the first step of opening a session: list the target's models once (GET /v1/models),
// detect the engine from its endpoints unless the plan names it, and choose the model to request.
// Listing and detection share one answer of /v1/models.

import { BenchgateError } from '../core/errors.js';
import { detectEngine, getAdapter } from '../engines/index.js';
import type { EngineAdapter, EngineName, HttpDoc, TargetHttp } from '../engines/types.js';
import type { Plan } from '../plan/schema.js';

/** The target's HTTP with GET /v1/models fetched once: listing and engine detection share the answer. */
export function listingOnce(http: TargetHttp): TargetHttp {
  let listing: Promise<HttpDoc> | null = null;
  return {
    baseUrl: http.baseUrl,
    request: (path, o) => {
      if (path !== '/v1/models' || (o?.method ?? 'GET') !== 'GET') return http.request(path, o);
      listing ??= http.request(path, o);
      return listing;
    },
  };
}

async function listModels(http: TargetHttp): Promise<string[]> {
  const doc = await http.request('/v1/models');
  // an oversize, late or redirected reply keeps its own code: the target was reached
  if (doc.error && doc.error.code !== 'BG_E_CONNECT')
    throw new BenchgateError(doc.error.code, `GET ${http.baseUrl}/v1/models failed: ${doc.error.message}`);
  if (doc.error || doc.status === null) {
    throw new BenchgateError(
      'BG_E_CONNECT',
      `could not reach the target at ${http.baseUrl}: ${doc.error?.message ?? 'no answer'}.`,
    );
  }
  if (doc.status !== 200) {
    throw new BenchgateError(
      'BG_E_HTTP_STATUS',
      `GET ${http.baseUrl}/v1/models answered HTTP ${doc.status}; the model list is needed to choose a model (or name one with --model).`,
    );
  }
  const data = (doc.json as { data?: { id?: unknown }[] } | undefined)?.data;
  return Array.isArray(data) ? data.map((d) => d.id).filter((x): x is string => typeof x === 'string') : [];
}

/** plan.target.model, else the checkpoint's verified model, else the first of /v1/models. */
function chooseModel(plan: Plan, url: string, ids: string[], verifiedModel: string | null): string {
  const model = plan.target.model ?? verifiedModel ?? ids[0] ?? null;
  if (model === null) {
    throw new BenchgateError(
      'BG_E_NO_MODEL',
      `GET ${url}/v1/models answered 200 with an empty model list and target.model is not set; name one with --model.`,
    );
  }
  if (plan.target.model && ids.length > 0 && !ids.includes(plan.target.model)) {
    throw new BenchgateError(
      'BG_E_PLAN_INVALID',
      `model "${plan.target.model}" is not served by ${url}; /v1/models lists: ${ids.slice(0, 10).join(', ')}.`,
    );
  }
  return model;
}

export interface DetectedTarget {
  engine: EngineName;
  adapter: EngineAdapter;
  model: string;
}

/** Lists the models, detects the engine (unless the plan names it) and chooses the model. */
export async function detectTarget(
  plan: Plan,
  url: string,
  http: TargetHttp,
  verifiedModel: string | null,
): Promise<DetectedTarget> {
  const ids = await listModels(http);
  const engine: EngineName = plan.target.engine === 'auto' ? await detectEngine(http) : plan.target.engine;
  return { engine, adapter: getAdapter(engine), model: chooseModel(plan, url, ids, verifiedModel) };
}
