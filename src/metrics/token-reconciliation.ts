// Server-reported versus client-counted tokens for a level's measured requests. The server's count is
// the truth metrics use; disagreements are counted here so a tokenizer or accounting mismatch is visible.

import type { RequestRecord } from '../records/request-record.js';
import type { LevelSummary } from './summary.js';

export function reconcileTokens(measured: readonly RequestRecord[]): LevelSummary['tokenReconciliation'] {
  let compared = 0;
  let outputMismatches = 0;
  let inputCompared = 0;
  let inputMismatches = 0;
  const chunkTokenSources: Record<string, number> = {};
  for (const r of measured) {
    if (r.outputTokensServer !== null && r.outputTokensClient !== null) {
      compared++;
      if (r.outputTokensServer !== r.outputTokensClient) outputMismatches++;
    }
    if (r.inputTokensServer !== null && r.inputTokensClient !== null) {
      inputCompared++;
      if (r.inputTokensServer !== r.inputTokensClient) inputMismatches++;
    }
    chunkTokenSources[r.chunkTokenSource] = (chunkTokenSources[r.chunkTokenSource] ?? 0) + 1;
  }
  return { compared, outputMismatches, inputCompared, inputMismatches, chunkTokenSources };
}
