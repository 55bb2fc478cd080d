// vitest setup file (vitest.config.ts), run in every test process before its test file: an empty home
// of its own under the run's temporary folder, and none of the shell's BENCHGATE_* settings (only the
// suite's own, test-env.ts), so the user's ~/.cache/benchgate/calibration.json (or any file a test would
// find in a home) changes nothing.

import { tmpdir } from 'node:os';
import { isolateHome, useSuiteSettings } from './test-env.js';

isolateHome(tmpdir(), process.env);
useSuiteSettings(process.env);
