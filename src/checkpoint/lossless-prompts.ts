// The built-in prompts of the lossless check: real English and code of mixed lengths (a short question
// to a page of context), so a speculative draft path meets both easy and hard continuations. A seed
// picks and orders them, so every config of a plan gets the same prompts in the same order.

import { seededRng } from '../core/seeded-random.js';
import { LOSSLESS_MAX_PROMPTS } from '../plan/lossless-schema.js';

const PROMPTS: readonly string[] = [
  'What is the capital of Australia? Answer in one sentence.',
  'Write a haiku about a lighthouse in winter.',
  'Explain the difference between a process and a thread to a new programmer.',
  'List five fruits that are high in vitamin C and say one thing about each.',
  'def fibonacci(n):\n    """Return the n-th Fibonacci number iteratively."""\n',
  'Translate into French: "The train leaves at seven, so we should be at the station by half past six."',
  'Summarise the plot of Romeo and Juliet in three sentences for a ten-year-old.',
  'Write a SQL query that returns the ten customers with the highest total order value from tables customers(id, name) and orders(id, customer_id, amount).',
  'function debounce(fn, waitMs) {\n  // Return a function that delays calling fn until waitMs have passed without another call.\n',
  'Why does ice float on water? Give the physical reason, then an everyday consequence.',
  'Continue the story: The last bus of the night stopped at the edge of the village, and nobody got off except a woman carrying a birdcage with no bird in it.',
  'Write a short email to a colleague asking to move our Thursday meeting to Friday morning, and apologise for the late notice.',
  'Here is a Python function with a bug:\n\ndef mean(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values) - 1\n\nFind the bug, explain it, and give the corrected function.',
  'Describe how a hash map handles collisions, comparing separate chaining with open addressing, and say when each is the better choice.',
  'Give a recipe for a simple tomato soup for four people, with quantities and steps.',
  'Write a bash one-liner that prints the five largest files under the current directory, with their sizes in human-readable form.',
  'The following paragraph is from a user manual:\n\n"Before first use, charge the device for at least four hours. The indicator light turns green when charging is complete. Do not leave the device in direct sunlight or in a closed car, and clean the lens only with the supplied cloth. If the device does not turn on, hold the power button for ten seconds to reset it."\n\nRewrite it as a numbered checklist for a new owner.',
  'Explain what the CAP theorem says about distributed databases, and give one real system that chooses availability over consistency.',
  'struct Point { double x; double y; };\n\n// Write a C function that returns the Euclidean distance between two Points.\n',
  'A farmer has 17 sheep, and all but 9 run away. How many sheep does the farmer have left? Explain your reasoning step by step.',
  'Write a limerick about a cat who learns to program.',
  'Compare TCP and UDP in a short table with rows for reliability, ordering, connection setup and typical uses, then recommend one for a multiplayer game.',
  'In Rust, explain what the borrow checker prevents, with a small example that does not compile and the fixed version.',
  'You are reviewing a pull request that adds caching to a web service. Write four questions you would ask the author about invalidation, memory limits, metrics and failure modes.',
];

if (PROMPTS.length !== LOSSLESS_MAX_PROMPTS) {
  throw new Error(
    `lossless-prompts: ${PROMPTS.length} prompts but LOSSLESS_MAX_PROMPTS is ${LOSSLESS_MAX_PROMPTS}`,
  );
}

/** `count` built-in prompts chosen and ordered by `seed` (a seeded shuffle; the same seed, the same list). */
export function losslessPrompts(count: number, seed: number): string[] {
  const order = PROMPTS.map((_, i) => i);
  const rng = seededRng(seed * 7919 + 17);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order.slice(0, Math.min(count, PROMPTS.length)).map((i) => PROMPTS[i]);
}
