// The simulator's flavours. Adding one = one `<name>-surface.ts` exporting a FlavorSurface, one line
// here, and its name in SimFlavor (api.ts).

import { BenchgateError } from '../core/errors.js';
import type { SimFlavor } from './api.js';
import type { FlavorSurface } from './flavor.js';
import { LLAMACPP_SURFACE } from './llamacpp-surface.js';
import { OPENAI_SURFACE } from './openai-surface.js';
import { SGLANG_SURFACE } from './sglang-surface.js';
import { VLLM_SURFACE } from './vllm-surface.js';

const FLAVORS: Record<SimFlavor, FlavorSurface> = {
  sglang: SGLANG_SURFACE,
  vllm: VLLM_SURFACE,
  openai: OPENAI_SURFACE,
  llamacpp: LLAMACPP_SURFACE,
};

export function flavorSurface(flavor: SimFlavor): FlavorSurface {
  const surface = FLAVORS[flavor] as FlavorSurface | undefined;
  if (!surface)
    throw new BenchgateError(
      'BG_E_USAGE',
      `Expected a simulator flavour among ${FLAVOR_NAMES.join(', ')}; found "${flavor}".`,
    );
  return surface;
}

/** Flavour names, for usage messages. */
export const FLAVOR_NAMES = Object.keys(FLAVORS) as SimFlavor[];
