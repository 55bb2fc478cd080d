// The flags that name the target server (--url, --engine, --api, --model), shared by `bench` and `check`:
// one set of options and one plan fragment, so the two commands read them alike.

import type { Command } from 'commander';

export interface TargetFlags {
  url?: string;
  engine?: string;
  api?: string;
  model?: string;
}

/** Adds the target options to a command. */
export function addTargetOptions(cmd: Command, urlHint = ''): Command {
  return cmd
    .option('--url <url>', `server base URL, e.g. http://127.0.0.1:30000${urlHint}`)
    .option('--engine <name>', 'auto | sglang | vllm | llamacpp | tgi | openai')
    .option('--api <api>', 'completions | chat | native')
    .option('--model <name>', 'model to request (default: first of /v1/models)');
}

/** The plan's `target` fragment the flags give (only what was given); null when none was. */
export function targetInput(o: TargetFlags): Record<string, string> | null {
  const target: Record<string, string> = {};
  if (o.url !== undefined) target.url = o.url;
  if (o.engine !== undefined) target.engine = o.engine;
  if (o.api !== undefined) target.api = o.api;
  if (o.model !== undefined) target.model = o.model;
  return Object.keys(target).length > 0 ? target : null;
}
