// Library entry point: the pieces other programs (and tests) use directly.

export type { CheckpointReport, Evidence, Finding } from './checkpoint/finding.js';
export * from './core/errors.js';
export type { ConfigFacts, VerifiedTarget } from './engines/types.js';
export type { Distribution, LevelSummary, RunSummary } from './metrics/summary.js';
export type { Plan } from './plan/schema.js';
export { planSchema } from './plan/schema.js';
export type { RequestRecord } from './records/request-record.js';
export { type RunBenchOptions, type RunBenchResult, runBench } from './session/run-bench.js';
export {
  type LevelOutcome,
  type OpenSessionOptions,
  openSession,
  type Session,
} from './session/session.js';
export type { SimulatorHandle, SimulatorOptions } from './sim/api.js';
