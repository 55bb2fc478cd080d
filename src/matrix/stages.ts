// The stages the matrix calls but does not own (checkpoint, opening a session of the server, drift check, comparison,
// checklist rendering). An interface so the runner stays one readable loop; defaults wire the real modules.

import type { CheckpointReport } from '../checkpoint/finding.js';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import type { VerifiedTarget } from '../engines/types.js';
import type { ProcessHost } from '../hosts/host.js';
import type { Plan } from '../plan/schema.js';
import type { SkippedConfig } from '../report/validity.js';
import type { Session } from '../session/session.js';

export interface OpenSessionArgs {
  /** The config's plan (its target URL is the launched server). */
  plan: Plan;
  planPath: string | null;
  /** The checkpoint that already passed; the session's gate returns it instead of checking again. */
  checkpoint: CheckpointOutcome;
  onProgress: (line: string) => void;
  /** The matrix's interrupt: the session's waits on the server end with it. */
  signal: AbortSignal;
}

export interface MatrixStages {
  checkpoint(args: {
    plan: Plan;
    host: ProcessHost;
    signal: AbortSignal;
    onProgress: (line: string) => void;
  }): Promise<CheckpointOutcome>;
  /** Prepares one session of the ready server (detection, smoke, tokenizer, one clock anchor). */
  openSession(args: OpenSessionArgs): Promise<Session>;
  /** Re-reads the cheap parts of the fingerprint after a level: did the server restart or change? */
  driftCheck(args: {
    plan: Plan;
    host: ProcessHost;
    verifiedTarget: VerifiedTarget;
  }): Promise<{ valid: boolean; reasons: string[] }>;
  /** Compares the completed configs' run directories; returns terminal text and the HTML report path. */
  compare(args: {
    runs: { name: string; dir: string }[];
    /** Configs that produced no level to compare (failed checkpoint, launch…), shown in the report with why. */
    skipped: SkippedConfig[];
    outDir: string;
    plan: Plan;
    json: boolean;
  }): Promise<{ text: string; htmlPath: string | null; json: unknown }>;
  renderChecklist(report: CheckpointReport, name: string): string;
}
