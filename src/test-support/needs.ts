// Test support: a test that needs something the machine may lack (sshd, Chromium, root for a tmpfs) is
// skipped only with its reason on stderr, where the run's output shows it beside the file. `npm test`
// installs the tools first (.ci/provision), so such a skip appears only where that was not possible.

import { existsSync } from 'node:fs';

/** Says on stderr which tests are skipped, why, and how to get what they need. */
export function sayWhySkipped(tests: string, reason: string): void {
  console.warn(`benchgate tests: skipped ${tests}: ${reason}`);
}

/** True when `path` exists; otherwise says why `tests` are skipped and how to install it. */
export function hasTool(path: string, tests: string, install: string): boolean {
  if (existsSync(path)) return true;
  sayWhySkipped(tests, `${path} is missing (${install}, or run \`npm test\`, which installs it)`);
  return false;
}
