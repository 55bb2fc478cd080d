// What the adapter's reading of a log says about the current start: whether it died (before its ready
// line, or at its first decodes after it) and whether speculative decoding accepts drafts.

import type { LogExpectation } from '../../plan/schema.js';
import { excerpt, finding, type LogState } from '../context.js';
import type { Finding } from '../finding.js';

/** The dead start and the acceptance verdict of the current start, from the adapter's reading. */
export function startFindings(id: string, spec: LogExpectation, st: LogState): Finding[] {
  const out: Finding[] = [];
  const r = st.reading;
  const where = (line: number) => `${spec.path}:${line}`;
  if (r.failedStart && r.failedStart.line >= st.currentFromLine) {
    const f = r.failedStart;
    out.push(
      finding(`${id}.start`, `Server start succeeded (${spec.path})`, 'fail', {
        required: spec.required,
        expected: f.afterReady
          ? 'the current start keeps serving after its ready line'
          : 'the current start reaches its ready line',
        found: f.afterReady
          ? `the server died after it was ready: line ${f.line}: ${excerpt(f.excerpt)}`
          : `the server failed to start: line ${f.line}: ${excerpt(f.excerpt)}`,
        evidence: [{ source: 'log', where: where(f.line), excerpt: excerpt(f.excerpt) }],
        hint: f.afterReady
          ? 'The engine died at its first requests (a draft path or scheduler failure): fix the cause in the log and restart the server.'
          : 'Fix the cause in the log (out of memory, a bad flag, a missing draft model) and restart the server.',
      }),
    );
  }
  const a = r.acceptance;
  if (a && a.lastLine >= st.currentFromLine) {
    const parts = [
      a.maxMeanLength !== null ? `highest mean acceptance length ${a.maxMeanLength.toFixed(2)}` : '',
      a.acceptedTokens !== null
        ? `${a.acceptedTokens} accepted of ${a.draftedTokens ?? 'unknown'} drafted tokens`
        : '',
    ].filter((p) => p !== '');
    out.push(
      finding(
        `${id}.spec_acceptance`,
        `Speculative decoding accepts draft tokens (${spec.path})`,
        a.neverAccepted ? 'fail' : 'pass',
        {
          required: spec.required,
          expected: 'mean acceptance length above 1.00 on some acceptance line',
          found: `${a.neverAccepted ? 'speculative decoding configured but never accepted: ' : ''}${a.lines} acceptance line(s) (lines ${a.firstLine}-${a.lastLine})${parts.map((p) => `, ${p}`).join('')}`,
          evidence: [{ source: 'log', where: where(a.lastLine), excerpt: excerpt(a.excerpt) }],
          hint: a.neverAccepted
            ? 'Every draft token was rejected: check the draft model matches the target model (and its revision), and the speculative settings.'
            : undefined,
        },
      ),
    );
  }
  return out;
}
