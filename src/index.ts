// Library entry point: the pieces other programs (and tests) use directly.

export * from './core/errors.js';
export type { RequestRecord } from './client/record.js';
export type { LevelSummary, RunSummary, Distribution } from './metrics/summary.js';
export type { Finding, CheckpointReport, Evidence } from './checkpoint/finding.js';
export type { VerifiedTarget, ConfigFacts } from './engines/types.js';
export type { Plan } from './plan/schema.js';
export type { SimulatorOptions, SimulatorHandle } from './sim/api.js';
