// The sources of a log collected by a container tool, which puts its own prefix before every line:
// docker compose (`llm0-1  | `, v1 `llm0_1  | `), kubectl logs --prefix (`[pod/name/container] `, and
// `pod/name ` as pasted), journalctl (`Dec 06 02:15:15 host vllm[4242]: `). One consistent prefix is stripped; two interleaved prefixes are two logs,
// each read on its own with the other's lines blanked, so every line keeps its number in the file.

/** One server's lines of a collected log; `name` null when the log carries no source prefix. */
export interface LogSource {
  name: string | null;
  text: string;
}

const SOURCE_PREFIXES: readonly RegExp[] = [
  // docker compose: the service name padded with blanks, then `| ` (the bar alone on an empty line)
  /^([A-Za-z0-9][\w.-]{0,127}) +\|(?: |$)/,
  // kubectl logs --prefix: `[pod/<pod>/<container>] `
  /^\[(pod\/[^\]\s]{1,300})\](?: |$)/,
  /^(pod\/[a-z0-9][a-z0-9.-]{0,252}) /,
  // journalctl (short and short-iso): `Dec 06 02:15:15 gpu-host vllm[4242]: `; the source is the host:
  // a unit's journal holds systemd's lines about it (`systemd[1]: vllm.service: Main process exited`)
  // and a restart changes the PID
  /^(?:[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[+-]\d{4}|Z)) ([\w.-]{1,64}) [\w.@/-]{1,64}(?:\[\d{1,10}\])?: /,
];

/** Share of non-empty lines that must carry a prefix for the log to be read as collected. */
const MIN_PREFIXED_SHARE = 0.75;
/** Fewest prefixed lines: one line with a bar is not a collected log. */
const MIN_PREFIXED_LINES = 2;
/** More sources than this is not a server log (a bar-separated table); the text is left as it is. */
const MAX_SOURCES = 16;

interface Prefixed {
  name: string;
  rest: string;
}

function prefixOf(line: string): Prefixed | null {
  for (const re of SOURCE_PREFIXES) {
    const m = re.exec(line.slice(0, 512));
    if (m) return { name: m[1], rest: line.slice(m[0].length) };
  }
  return null;
}

/**
 * The sources of `text` (ANSI codes already stripped: compose colours its prefixes): one entry, the text as it is, when it has no consistent source prefix; else
 * one entry per source in order of first appearance, its prefix stripped, other sources' lines blank,
 * lines without a prefix (a pasted command line) kept in each.
 */
export function logSources(text: string): LogSource[] {
  const lines = text.split(/\r?\n/);
  const prefixed = lines.map(prefixOf);
  const nonEmpty = lines.filter((l) => l.trim() !== '').length;
  const count = prefixed.filter((p) => p !== null).length;
  if (count < MIN_PREFIXED_LINES || count < nonEmpty * MIN_PREFIXED_SHARE) return [{ name: null, text }];
  const names = [...new Set(prefixed.flatMap((p) => (p ? [p.name] : [])))];
  if (names.length > MAX_SOURCES) return [{ name: null, text }];
  return names.map((name) => ({
    name,
    text: lines
      .map((l, i) => (prefixed[i] === null ? l : prefixed[i]?.name === name ? prefixed[i].rest : ''))
      .join('\n'),
  }));
}

/**
 * The text of a log's one source, its prefix stripped (the text itself when it has none). A log of
 * several interleaved sources is several logs, read one by one through `logSources`: read whole, none
 * of its sources' lines is read (each is blanked), so no server's facts are taken for another's.
 */
export function oneSourceText(text: string): string {
  const sources = logSources(text);
  if (sources.length === 1) return sources[0].text;
  return text
    .split(/\r?\n/)
    .map((l) => (prefixOf(l) === null ? l : ''))
    .join('\n');
}
