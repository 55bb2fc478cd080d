// Engine flags → the configuration the simulated engine serves: each flavour's argparse and start-up
// derivations (sglang-args.ts, vllm-args.ts), reached through the flavour registry.

import type { SimFlavor } from './api.js';
import { flavorSurface } from './flavors.js';
import type { SimProfile } from './profiles.js';
import type { ServedConfig, SimEnv } from './served-config.js';

/** Parses engine flags for a flavour and applies that engine's derivations. */
export function deriveServedConfig(
  flavor: SimFlavor,
  profile: SimProfile,
  argv: string[],
  env: SimEnv,
): ServedConfig {
  return flavorSurface(flavor).deriveConfig(profile, argv, env);
}
