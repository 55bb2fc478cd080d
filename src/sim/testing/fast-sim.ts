// Test helper: embedded simulators that load at once and run 1000x faster than real time, with their
// log lines collected, each closed after the test that started it.

import { afterEach } from 'vitest';
import type { SimulatorHandle, SimulatorOptions } from '../api.js';
import { startSimulator } from '../index.js';

/** EAGLE-3, top-k 1, 3 steps: the usual speculative configuration in simulator tests. */
export const EAGLE3_TOPK1_ARGS: readonly string[] = [
  '--speculative-algorithm',
  'EAGLE3',
  '--speculative-eagle-topk',
  '1',
  '--speculative-num-steps',
  '3',
];

/** Call at module level: registers the afterEach that closes every simulator the returned functions saw. */
export function simulatorsClosedAfterEach() {
  const handles: SimulatorHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((h) => h.close()));
  });
  const closeAfterTest = (h: SimulatorHandle): SimulatorHandle => {
    handles.push(h);
    return h;
  };
  /** A fast simulator, ready, with its log lines (options override the fast defaults). */
  const sim = async (o: SimulatorOptions = {}): Promise<{ h: SimulatorHandle; lines: string[] }> => {
    const lines: string[] = [];
    const h = closeAfterTest(
      await startSimulator({ timeScale: 1000, loadTimeS: 0, onLog: (l) => lines.push(l), ...o }),
    );
    await h.ready;
    return { h, lines };
  };
  return { sim, closeAfterTest };
}
