// A tiny closed-loop load generator for the simulator's own tests: `concurrency` workers each send
// `requestsPerWorker` native /generate requests back to back; results come from the server's truth.

import type { RequestTruth } from '../simulator.js';

export interface LoopResult {
  outputTokensPerSimS: number;
  meanLatencySimS: number;
  meanAcceptLen: number;
  requests: RequestTruth[];
}

/**
 * Simulated seconds during which at least one request was in the server. Idle gaps (the client's
 * own round trip, magnified by the time scale) are left out, so figures do not depend on client speed.
 */
export function busySimS(requests: RequestTruth[]): number {
  const spans = requests.map((r) => [r.arrivalSimS, r.finishSimS as number]).sort((a, b) => a[0] - b[0]);
  let total = 0;
  let curStart = Number.NEGATIVE_INFINITY;
  let curEnd = Number.NEGATIVE_INFINITY;
  for (const [s, e] of spans) {
    if (s > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else curEnd = Math.max(curEnd, e);
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

export async function closedLoop(
  url: string,
  opts: { concurrency: number; requestsPerWorker: number; maxTokens: number; promptWords: number },
): Promise<LoopResult> {
  const prompt = Array.from({ length: opts.promptWords }, (_, i) => `w${i}`).join(' ');
  const before = new Set(
    ((await (await fetch(`${url}/_sim/requests`)).json()) as { requests: RequestTruth[] }).requests.map(
      (r) => r.id,
    ),
  );
  const worker = async (w: number) => {
    for (let i = 0; i < opts.requestsPerWorker; i++) {
      // lengths vary a little so completions do not arrive in lock-step cohorts
      const maxNew = opts.maxTokens + ((w * 7 + i * 13) % Math.max(1, Math.floor(opts.maxTokens / 2)));
      const res = await fetch(`${url}/generate`, {
        method: 'POST',
        body: JSON.stringify({ text: prompt, sampling_params: { max_new_tokens: maxNew }, stream: false }),
      });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      await res.json();
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, (_, w) => worker(w)));
  const all = ((await (await fetch(`${url}/_sim/requests`)).json()) as { requests: RequestTruth[] }).requests;
  const requests = all.filter((r) => !before.has(r.id) && r.finishSimS !== null);
  const tokens = requests.reduce((s, r) => s + r.completionTokens, 0);
  const latency =
    requests.reduce((s, r) => s + ((r.finishSimS as number) - r.arrivalSimS), 0) / requests.length;
  const verify = requests.reduce((s, r) => s + r.verifyCt, 0);
  return {
    outputTokensPerSimS: tokens / busySimS(requests),
    meanLatencySimS: latency,
    meanAcceptLen: verify > 0 ? requests.reduce((s, r) => s + r.completionTokens - 1, 0) / verify : 0,
    requests,
  };
}
