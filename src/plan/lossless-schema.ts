// The plan's `lossless:` section: a greedy-output check that speculative decoding (or any other
// setting) does not change the answers. Kept apart from schema.ts, which only references it.

import { z } from 'zod';

/** How many built-in prompts exist (checkpoint/lossless-prompts.ts); `prompts` may not exceed it. */
export const LOSSLESS_MAX_PROMPTS = 24;

export const losslessSchema = z
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
    baseline: z
      .string()
      .optional()
      .describe('Config every other config is compared with; default: the first config.'),
    reference: z
      .string()
      .optional()
      .describe(
        'File of prompts and expected greedy answers (written by `benchgate check PLAN --record-reference FILE`); `benchgate check` then compares the server with it.',
      ),
  })
  .strict()
  .describe('Lossless check: the same greedy answers with every configuration.');

export type LosslessSpec = z.infer<typeof losslessSchema>;
