// `benchgate sim`: starts the embedded simulator, prints its URL, streams engine-style logs to stdout,
// and exits on SIGTERM/SIGINT (0) or when a crash fault ends the simulated process (non-zero).
// Engine flags (e.g. --tp-size 8, --speculative-config JSON) pass through to the simulator untouched.

import type { Command } from 'commander';
import { BenchgateError } from '../../core/errors.js';
import type { SimulatorOptions } from '../../sim/api.js';
import { startSimulator } from '../../sim/index.js';
import { resolveProfile } from '../../sim/profiles.js';
import { action, parsePositive } from '../action.js';

interface OwnFlag {
  name: string;
  /** Takes a value. */
  value: boolean;
  help: string;
}

const OWN_FLAGS: OwnFlag[] = [
  { name: '--flavor', value: true, help: 'sglang | vllm | openai | llamacpp (default sglang)' },
  { name: '--host', value: true, help: 'address to bind (default 127.0.0.1)' },
  { name: '--port', value: true, help: 'port, 0 picks a free one (default 0)' },
  {
    name: '--time-scale',
    value: true,
    help: 'run the model this many times faster than real time (default 1)',
  },
  {
    name: '--profile',
    value: true,
    help: 'story-moe-int4-8xpcie | dense-8b-1gpu | fixed | a .yaml/.json file',
  },
  { name: '--log-file', value: true, help: 'also write the engine log to this file' },
  { name: '--fault', value: true, help: 'inject a fault NAME[=VALUE]; repeatable' },
  {
    name: '--load-time',
    value: true,
    help: `simulated model load in seconds (real time); default: the profile’s, at most 5 s`,
  },
  { name: '--ttft-ms', value: true, help: 'fixed profile: time to first chunk' },
  { name: '--itl-ms', value: true, help: 'fixed profile: time between chunks' },
  { name: '--tokens-per-chunk', value: true, help: 'fixed profile: tokens per chunk' },
  { name: '--seed', value: true, help: 'seed for generated text and acceptance draws' },
  {
    name: '--http-threads',
    value: true,
    help: 'serve at most N connections at once, idle keep-alive ones included (default: no cap)',
  },
];

/** The simulator options the command line sets; faults and engine flags always present (maybe empty). */
export type SimCliOptions = Pick<
  SimulatorOptions,
  | 'flavor'
  | 'host'
  | 'port'
  | 'timeScale'
  | 'profile'
  | 'logFile'
  | 'loadTimeS'
  | 'ttftMs'
  | 'itlMs'
  | 'tokensPerChunk'
  | 'seed'
  | 'httpThreads'
> & { faults: string[]; engineArgs: string[] };

/** Splits argv into the simulator's own flags and the engine flags (everything else, in order). */
export function splitSimArgv(argv: string[]): SimCliOptions {
  const out: SimCliOptions = { faults: [], engineArgs: [] };
  const own = new Map(OWN_FLAGS.map((f) => [f.name, f]));
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    const name = eq > 0 && a.startsWith('--') ? a.slice(0, eq) : a;
    const flag = own.get(name);
    if (!flag) {
      out.engineArgs.push(a);
      continue;
    }
    let v: string | undefined;
    if (eq > 0) v = a.slice(eq + 1);
    else if (i + 1 < argv.length) v = argv[++i];
    if (v === undefined)
      throw new BenchgateError('BG_E_USAGE', `${name} expects a value; found nothing after it.`);
    switch (name) {
      case '--flavor':
        if (v !== 'sglang' && v !== 'vllm' && v !== 'openai' && v !== 'llamacpp') {
          throw new BenchgateError(
            'BG_E_USAGE',
            `--flavor expects sglang, vllm, openai or llamacpp; found "${v}".`,
          );
        }
        out.flavor = v;
        break;
      case '--host':
        out.host = v;
        break;
      case '--port':
        out.port = parsePositive('--port', v, { integer: true, allowZero: true });
        if (out.port > 65535)
          throw new BenchgateError('BG_E_USAGE', `--port expects 0..65535; found "${v}".`);
        break;
      case '--time-scale':
        out.timeScale = parsePositive('--time-scale', v);
        break;
      case '--profile':
        out.profile = v;
        break;
      case '--log-file':
        out.logFile = v;
        break;
      case '--fault':
        out.faults.push(v);
        break;
      case '--load-time':
        out.loadTimeS = parsePositive('--load-time', v, { allowZero: true });
        break;
      case '--ttft-ms':
        out.ttftMs = parsePositive('--ttft-ms', v, { allowZero: true });
        break;
      case '--itl-ms':
        out.itlMs = parsePositive('--itl-ms', v, { allowZero: true });
        break;
      case '--tokens-per-chunk':
        out.tokensPerChunk = parsePositive('--tokens-per-chunk', v, { integer: true });
        break;
      case '--seed':
        out.seed = parsePositive('--seed', v, { integer: true, allowZero: true });
        break;
      case '--http-threads':
        out.httpThreads = parsePositive('--http-threads', v, { integer: true });
        break;
    }
  }
  return out;
}

/**
 * `benchgate sim` without --load-time loads for at most this long: a user trying the simulator should not
 * wait the ten minutes the story profile models for a 480B model (the demo sets its own load time).
 */
export const SIM_CLI_LOAD_S = 5;

/** The load time `benchgate sim` uses, and the sentence saying it when the server listens. */
export function simLoadPlan(o: SimCliOptions): { loadTimeS: number; sentence: string } {
  const profile = resolveProfile(o.profile);
  const modelled = profile.loadTimeS / (o.timeScale ?? 1);
  const slow = o.faults.map((f) => /^slow-start=(\d+(?:\.\d+)?)$/.exec(f)).find(Boolean);
  const slowS = slow ? Number(slow[1]) : 0;
  const loadTimeS = o.loadTimeS ?? Math.min(modelled, SIM_CLI_LOAD_S);
  const total = loadTimeS + slowS;
  const why =
    o.loadTimeS !== undefined
      ? '--load-time'
      : modelled > loadTimeS
        ? `the ${profile.name} profile models ${modelled.toFixed(0)} s; --load-time ${modelled.toFixed(0)} waits that long`
        : `the ${profile.name} profile`;
  const sentence =
    total > 0
      ? `the model loads for ${total.toFixed(total < 10 ? 1 : 0)} s (${why}${slowS ? `, slow-start ${slowS} s` : ''}): /health answers 503 until then`
      : 'no model load: ready now';
  return { loadTimeS, sentence };
}

export async function runSim(o: SimCliOptions): Promise<number> {
  // a closed stdout (e.g. piped into `head`) must not crash the server
  process.stdout.on('error', () => {});
  const write = (line: string) => {
    process.stdout.write(`${line}\n`);
  };
  const load = simLoadPlan(o);
  const startedAt = performance.now();
  const handle = await startSimulator({ ...o, loadTimeS: load.loadTimeS, onLog: write });
  write(
    `benchgate sim: ${o.flavor ?? 'sglang'} simulator listening on ${handle.url} (profile ${o.profile ?? 'story-moe-int4-8xpcie'}, time scale ${o.timeScale ?? 1}); ${load.sentence}`,
  );
  let closed = false;
  void handle.ready?.then(() => {
    if (!closed) write(`benchgate sim: ready after ${((performance.now() - startedAt) / 1000).toFixed(1)} s`);
  });
  const stop = () => {
    closed = true;
    void handle.close();
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const exit = await handle.exited!;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  if (exit.code !== 0) process.stderr.write(`benchgate sim: the simulated server exited: ${exit.reason}\n`);
  return exit.code;
}

export function registerSim(program: Command): void {
  program
    .command('sim')
    .description(
      'Start the embedded SGLang/vLLM/llama.cpp/OpenAI simulator (engine flags pass through, e.g. --tp-size 8).',
    )
    .helpOption('-h, --help', 'show help')
    .addHelpText(
      'after',
      `\nSimulator flags:\n${OWN_FLAGS.map((f) => `  ${f.name.padEnd(20)} ${f.help}`).join('\n')}\n\nAny other flag is an engine flag (sglang: --tp-size, --speculative-algorithm, ...; vllm: --speculative-config, --max-num-seqs, ...).\nFaults: crash-on-first-decode, slow-start=S, slow=X, stall-stream[=F], malformed-chunk[=F], reset-mid-stream[=F], http-errors=RATE, stale-log, config-drift, restart-after=N, spec-diverge=POS, ignore-max-tokens[=F], huge-models=MIB, close-after-stream.`,
    )
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .argument('[args...]')
    .action(action(async (args: string[]) => runSim(splitSimArgv(args ?? []))));
}
