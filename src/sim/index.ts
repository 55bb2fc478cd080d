// Public entry of the embedded simulator: start it, and the types its callers need.

export type { SimExit, SimFlavor, SimulatorHandle, SimulatorOptions } from './api.js';
export { BUILTIN_PROFILES, type SimProfile } from './profiles.js';
export { type RequestTruth, SimulatedServer, startSimulator } from './simulator.js';
export { countTokens, detokenize, tokenize } from './tokenizer.js';
