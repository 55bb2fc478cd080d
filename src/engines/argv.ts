// Parses a server's command line (`--flag value`, `--flag=value`, bare boolean flags, positionals)
// into a flag map keyed by the flag's underscore name, the way argparse names its destinations.

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
