// Engine detection and model identity: which engine answers (checked against target.engine), which
// model it serves (checked against target.model), and the live configuration read by its adapter.

import { detectEngine, getAdapter } from '../../engines/index.js';
import type { EngineName, HttpDoc } from '../../engines/types.js';
import { type CheckContext, excerpt, finding } from '../context.js';
import type { Finding } from '../finding.js';

function modelIds(json: unknown): string[] {
  const data = (json as { data?: unknown })?.data;
  if (!Array.isArray(data)) return [];
  return data.map((m) => (m as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string');
}

/** What GET /v1/models gave, as evidence: its text, or the coded failure (an oversize or cut reply has no text). */
function modelsEvidence(doc: HttpDoc): Finding['evidence'] {
  const text = doc.error ? `${doc.error.message} [${doc.error.code}]` : excerpt(doc.text);
  return [{ source: 'endpoint', where: `GET ${doc.url}`, excerpt: text }];
}

/** Why there is no model list: the failure's code, or the HTTP status and whether the body was JSON. */
function noListReason(doc: HttpDoc): string {
  if (doc.error) return doc.error.code;
  return `HTTP ${doc.status ?? 'none'}${doc.json === undefined ? ', not JSON' : ''}`;
}

/** The engine finding: the detected engine against target.engine, or unknown while the server loads. */
function engineFinding(ctx: CheckContext, detected: EngineName, modelsStatus: number | null): Finding {
  const wanted = ctx.plan.target.engine;
  // a loading server answers 503 everywhere: no endpoint tells its engine yet, so it is not "openai"
  if (wanted === 'auto' && detected === 'openai' && !ctx.healthy)
    return finding('engine', 'Engine identified', 'skip', {
      found: `unknown: the server is not ready (GET /health not 200, GET /v1/models answered ${modelsStatus ?? 'nothing'}), so its endpoints cannot tell the engine yet`,
      evidence: [
        { source: 'endpoint', where: ctx.url, excerpt: 'no engine-specific endpoint answered while loading' },
      ],
      hint: 'Wait for the model to load (expect.wait in a plan), then run again.',
    });
  const mismatch = wanted !== 'auto' && wanted !== detected && detected !== 'openai';
  return finding('engine', 'Engine identified', mismatch ? 'fail' : 'pass', {
    expected: wanted === 'auto' ? undefined : wanted,
    found:
      detected === 'openai' && wanted !== 'auto' ? `${wanted} (not contradicted by its endpoints)` : detected,
    evidence: [{ source: 'endpoint', where: ctx.url, excerpt: `detected ${detected} from its endpoints` }],
    hint: mismatch
      ? `target.engine (--engine) says ${wanted} but the server looks like ${detected}; fix it or the URL.`
      : undefined,
  });
}

export async function checkEngine(ctx: CheckContext): Promise<Finding[]> {
  const out: Finding[] = [];
  const wanted = ctx.plan.target.engine;
  const detected: EngineName = await detectEngine(ctx.http);
  const engine: EngineName = wanted === 'auto' ? detected : wanted;
  const modelsDoc = await ctx.http.request('/v1/models');
  out.push(engineFinding(ctx, detected, modelsDoc.status));
  ctx.engine = engine;
  ctx.adapter = getAdapter(engine);

  try {
    ctx.live = await ctx.adapter.readLive(ctx.http);
  } catch (e) {
    ctx.live = { facts: {}, raw: {} };
    out.push(
      finding('config.live', 'Live configuration read', 'warn', {
        required: false,
        found: `the ${engine} endpoints could not be read: ${(e as Error).message}`,
      }),
    );
  }

  const ids = modelIds(modelsDoc.json);
  const evidence = modelsEvidence(modelsDoc);
  const want = ctx.plan.target.model;
  if (want) {
    const served = ids.includes(want);
    ctx.model = served ? want : (ids[0] ?? null);
    out.push(
      finding('model', 'Model identity', served ? 'pass' : 'fail', {
        expected: want,
        found: ids.length > 0 ? ids.join(', ') : `no model list (${noListReason(modelsDoc)})`,
        evidence,
        hint: served
          ? undefined
          : '--model (target.model in a plan) must be one of the ids GET /v1/models lists.',
      }),
    );
  } else if (ids.length > 0) {
    ctx.model = ids[0];
    out.push(
      finding('model', 'Model identity', 'pass', {
        found: ids[0],
        evidence,
      }),
    );
  } else {
    const fromFacts = ctx.live?.facts.served_model_name?.value ?? ctx.live?.facts.model?.value;
    ctx.model = typeof fromFacts === 'string' ? fromFacts : null;
    out.push(
      finding('model', 'Model identity', ctx.model ? 'warn' : 'fail', {
        expected: 'a model id from GET /v1/models',
        found: ctx.model
          ? `${ctx.model} (from the live config; /v1/models gave none)`
          : `none (${noListReason(modelsDoc)})`,
        evidence,
        hint: 'Name the model with --model (target.model in a plan), or check that the server exposes GET /v1/models.',
      }),
    );
  }
  return out;
}
