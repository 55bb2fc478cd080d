// Public contract of the embedded simulator (implemented in src/sim/). Tests and the CLI start it
// through startSimulator(); `benchgate sim` is a thin wrapper around the same function.

export type SimFlavor = 'sglang' | 'vllm' | 'openai' | 'llamacpp';

export interface SimulatorOptions {
  flavor?: SimFlavor;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** >1 runs the whole model faster than real time. */
  timeScale?: number;
  /** Built-in profile name (e.g. `story-moe-int4-8xpcie`, `dense-8b-1gpu`, `fixed`) or a profile file path. */
  profile?: string;
  logFile?: string;
  /** Fault specs such as `stall-stream`, `http-errors=0.1`, `restart-after=50`. */
  faults?: string[];
  /** Engine flags in the engine's own spelling, e.g. ['--speculative-algorithm','EAGLE3','--tp-size','8']. */
  engineArgs?: string[];
  /** Environment the engine would see (SGLANG_ENABLE_SPEC_V2, VLLM_SERVER_DEV_MODE). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Overrides the profile's (scaled) model load time, in seconds. */
  loadTimeS?: number;
  /** `fixed` profile knobs. */
  ttftMs?: number;
  itlMs?: number;
  tokensPerChunk?: number;
  /** Seed for acceptance draws and generated text. */
  seed?: number;
  /**
   * Connections served at once, idle keep-alive ones included (a thread each, as in llama.cpp's httplib
   * before its dynamic pool); more wait unserved until one closes. Default: no cap.
   */
  httpThreads?: number;
  /** Where log lines go besides logFile (default: none for the library, stdout for the CLI). */
  onLog?: (line: string) => void;
}

/** How the simulated engine process ended: code 0 after close(), non-zero after a crash fault. */
export interface SimExit {
  code: number;
  reason: string;
}

export interface SimulatorHandle {
  url: string;
  port: number;
  /** Stops accepting, ends open streams, resolves when closed. */
  close(): Promise<void>;
  /** Resolves when /health turns 200 (after the simulated model load), or at close. */
  ready?: Promise<void>;
  /** Resolves when the simulated process ends: close() (code 0) or a crash fault (code 1, server stops serving). */
  exited?: Promise<SimExit>;
}
