// The stages the matrix calls but does not own (checkpoint, one sweep level, drift check, comparison,
// checklist rendering). An interface so the runner stays one readable loop; defaults wire the real modules.

import type { CheckpointReport } from '../checkpoint/finding.js';
import type { CheckpointOutcome } from '../checkpoint/gate.js';
import type { VerifiedTarget } from '../engines/types.js';
import type { ProcessHost } from '../hosts/host.js';
import type { LevelSummary } from '../metrics/summary.js';
import type { Plan } from '../plan/schema.js';

export interface SweepLevelArgs {
  /** The config's plan narrowed to the one level to run (load.levels has one entry). */
  plan: Plan;
  /** Index of this level in the full plan's load.levels. */
  levelIndex: number;
  /** Directory the level's run is written to (created by the caller, empty). */
  runDir: string;
  checkpoint: CheckpointOutcome;
  signal: AbortSignal;
  onProgress: (line: string) => void;
  /** Drift check to run right after the level (its result becomes the level's validity). */
  afterLevel: () => Promise<{ valid: boolean; reasons: string[] }>;
}

export interface MatrixStages {
  checkpoint(args: {
    plan: Plan;
    host: ProcessHost;
    signal: AbortSignal;
    onProgress: (line: string) => void;
  }): Promise<CheckpointOutcome>;
  sweepLevel(args: SweepLevelArgs): Promise<LevelSummary>;
  /** Re-reads the cheap parts of the fingerprint after a level: did the server restart or change? */
  driftCheck(args: {
    plan: Plan;
    host: ProcessHost;
    verifiedTarget: VerifiedTarget;
  }): Promise<{ valid: boolean; reasons: string[] }>;
  /** Compares the completed configs' run directories; returns terminal text and the HTML report path. */
  compare(args: {
    runs: { name: string; dir: string }[];
    outDir: string;
    plan: Plan;
    json: boolean;
  }): Promise<{ text: string; htmlPath: string | null; json: unknown }>;
  renderChecklist(report: CheckpointReport, name: string): string;
}
