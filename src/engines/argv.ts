// Parses a server's command line (`--flag value`, `--flag=value`, bare boolean flags, positionals)
// into a flag map keyed by the flag's underscore name, the way argparse names its destinations.

import { parsePyValue } from './pyrepr.js';

export interface ParsedArgv {
  /** `--tp-size 8` → { tp_size: '8' }; bare `--disable-overlap-schedule` → { disable_overlap_schedule: true }. */
  flags: Record<string, string | true>;
  /** Arguments that are not flags or flag values (e.g. the model of `vllm serve MODEL`). */
  positionals: string[];
}

/**
 * Parses argv from `startIndex`. A flag followed by another flag (or nothing) is boolean; negative
 * numbers count as values. The last occurrence of a flag wins, as with argparse.
 */
export function parseFlagArgv(argv: string[], startIndex = 0): ParsedArgv {
  const flags: Record<string, string | true> = {};
  const positionals: string[] = [];
  for (let i = startIndex; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--') && a.length > 2) {
      const eq = a.indexOf('=');
      const name = (eq >= 0 ? a.slice(2, eq) : a.slice(2)).replace(/-/g, '_');
      if (eq >= 0) {
        flags[name] = a.slice(eq + 1);
        continue;
      }
      const next = argv[i + 1];
      if (next === undefined || (next.startsWith('-') && !/^-\d/.test(next))) flags[name] = true;
      else {
        flags[name] = next;
        i++;
      }
    } else positionals.push(a);
  }
  return { flags, positionals };
}

/** A flag name argparse read as an abbreviation of a longer option. */
export interface Abbreviation {
  given: string;
  flag: string;
}

/**
 * Expands argparse unique-prefix abbreviations (`--tensor-parallel 2` → tensor_parallel_size): a flag
 * that is not in `known` but is the prefix of exactly one name in it becomes that name, as argparse
 * (allow_abbrev, the default) would read it. An ambiguous or unknown prefix is kept as given. A full
 * name given as well wins over its abbreviation only if it came later on the line (argparse: last wins).
 */
export function expandAbbreviations(
  parsed: ParsedArgv,
  known: ReadonlySet<string>,
): ParsedArgv & { abbreviations: Abbreviation[] } {
  const flags: Record<string, string | true> = {};
  const abbreviations: Abbreviation[] = [];
  for (const [name, v] of Object.entries(parsed.flags)) {
    let flag = name;
    if (!known.has(name)) {
      const matches = [...known].filter((k) => k.startsWith(name));
      if (matches.length === 1) {
        flag = matches[0];
        abbreviations.push({ given: name, flag });
      }
    }
    flags[flag] = v;
  }
  return { flags, positionals: parsed.positionals, abbreviations };
}

/** `--tensor-parallel → --tensor-parallel-size, ...` for a fact or a finding. */
export function describeAbbreviations(abbreviations: readonly Abbreviation[]): string {
  return abbreviations.map((a) => `--${a.given} → --${a.flag}`.replace(/_/g, '-')).join(', ');
}

/**
 * A JSON-valued flag (`--speculative-config '{"method":"eagle3",...}'`, `--compilation-config {...}`)
 * as an object, so its fields become nested keys; Python-literal dicts (single quotes, True/None) are
 * read too. Other text is returned unchanged.
 */
export function objectFlagValue(v: string, parsePython: (t: string) => unknown): unknown {
  const t = v.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return v;
  try {
    return JSON.parse(t);
  } catch {
    const py = parsePython(t);
    return typeof py === 'object' && py !== null && !Array.isArray(py) ? py : v;
  }
}

/** Converts a flag's text to a typed value: numbers, None/null, true/false; other text unchanged. */
export function flagValue(v: string | true): string | number | boolean | null {
  if (v === true) return true;
  const t = v.trim();
  if (/^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(t)) return Number(t);
  if (t === 'None' || t === 'null') return null;
  if (/^(true|True)$/.test(t)) return true;
  if (/^(false|False)$/.test(t)) return false;
  return v;
}

/** Index just after the token that names the engine entry point (e.g. `sglang.launch_server`), else 0. */
export function indexAfter(argv: string[], isEntry: (token: string) => boolean): number {
  const i = argv.findIndex(isEntry);
  return i >= 0 ? i + 1 : 0;
}

/** True for environment values the engines treat as on ("1", "true", "yes", case-insensitive). */
export function envTruthy(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  const t = v.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(t)) return true;
  if (['0', 'false', 'no', 'off', ''].includes(t)) return false;
  return undefined;
}

/** A server command line read as argparse would: typed values, JSON flags as objects, abbreviations expanded. */
export interface ServerArgs {
  args: Record<string, unknown>;
  positionals: string[];
  abbreviations: Abbreviation[];
}

/**
 * Reads an argparse server's argv from `startIndex`: unique-prefix abbreviations of `known` flags
 * expanded, JSON- or Python-dict-valued flags as objects (so they become nested keys), other values
 * typed by flagValue. `alias` renames a flag to the engine's field name (`tp` → `tp_size`).
 */
export function readServerArgv(
  argv: string[],
  startIndex: number,
  known: ReadonlySet<string>,
  alias: Record<string, string> = {},
): ServerArgs {
  const { flags, positionals, abbreviations } = expandAbbreviations(parseFlagArgv(argv, startIndex), known);
  const args: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flags)) {
    const obj = typeof v === 'string' ? objectFlagValue(v, (t) => parsePyValue(t).value) : v;
    args[alias[k] ?? k] = obj !== v ? obj : flagValue(v);
  }
  return { args, positionals, abbreviations };
}
