// The plan's `lossless:` section: a greedy-output check that speculative decoding (or any other
// setting) does not change the answers; `lossless: false` reads as { enabled: false }. Kept apart from
// schema.ts, which only references it.

import { z } from 'zod';

/** How many built-in prompts exist (checkpoint/lossless-prompts.ts); `prompts` may not exceed it. */
export const LOSSLESS_MAX_PROMPTS = 24;

const losslessObject = z
  .object({
    enabled: z.boolean().default(true).describe('Run the check (default true when the section is present).'),
    prompts: z
      .number()
      .int()
      .min(1)
      .max(LOSSLESS_MAX_PROMPTS)
      .default(16)
      .describe(
        `How many built-in prompts (mixed lengths, English and code) to send, at most ${LOSSLESS_MAX_PROMPTS}.`,
      ),
    seed: z.number().int().min(0).default(1).describe('Chooses and orders the prompts.'),
    max_tokens: z
      .number()
      .int()
      .min(1)
      .max(4096)
      .default(64)
      .describe('Output tokens per answer (temperature 0).'),
    late_share: z
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe(
        'A divergence at or after this share of the answer is "diverges late" (batched-kernel numerics); before it, "diverges early" (a failure).',
      ),
    required: z
      .boolean()
      .default(false)
      .describe('When true, a config whose answers diverge early (or could not be read) is invalid.'),
    near_tie_nats: z
      .number()
      .positive()
      .default(0.25)
      .describe(
        "Where the engine returns logprobs: a first divergence at which the baseline's top-1 and top-2 log-probabilities are within this many nats is a near-tie (numerics); a wider margin is a bug.",
      ),
    baseline: z
      .string()
      .optional()
      .describe(
        'Config every other config is compared with; default: the first config without speculative decoding, else the first config.',
      ),
    reference: z
      .string()
      .optional()
      .describe(
        'File of prompts and expected greedy answers (written by `benchgate check PLAN --record-reference FILE`); `benchgate check` then compares the server with it.',
      ),
  })
  .strict();

/**
 * The section, or `false` to turn the check off. A matrix whose configs differ in speculative settings
 * runs it without the section (matrix/lossless-default.ts).
 */
export const losslessSchema = z
  .union([z.literal(false).transform(() => losslessObject.parse({ enabled: false })), losslessObject])
  .describe(
    'Lossless check: the same greedy answers with every configuration. On by default in a matrix whose configs differ in speculative settings; `lossless: false` turns it off.',
  );

export type LosslessSpec = z.infer<typeof losslessObject>;
