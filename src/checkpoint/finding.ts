// A checkpoint finding: one fact about the target, judged, with the evidence it came from.
// Findings are what `benchgate check` prints and what a run's manifest keeps.

export type FindingStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface Evidence {
  /** Kind of source the fact was read from. */
  source: 'endpoint' | 'log' | 'process' | 'command' | 'file' | 'config';
  /** Where: a URL, `path:line`, a command line, /proc path. Never contains secrets. */
  where: string;
  /** The relevant excerpt (trimmed to a few hundred characters). */
  excerpt: string;
}

export interface Finding {
  /** Stable id, e.g. `reachable`, `healthy`, `config.speculative.topk`, `log.0.contains`, `tool.0`. */
  id: string;
  title: string;
  status: FindingStatus;
  /** Required findings gate the run; advisory ones only inform. */
  required: boolean;
  expected?: string;
  found?: string;
  evidence: Evidence[];
  /** One line telling the user what to do about it. */
  hint?: string;
}

export interface CheckpointReport {
  /** True when no required finding failed. */
  ok: boolean;
  findings: Finding[];
  /** ISO wall time the checkpoint finished. */
  checkedAt: string;
}

export function gateFailed(findings: Finding[]): Finding[] {
  return findings.filter((f) => f.required && f.status === 'fail');
}
