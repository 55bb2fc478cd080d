// What every nvidia-smi reader does first: decide the text can be nvidia-smi output at all, split it
// into clean lines (ANSI escapes, CR and Markdown fences of a paste removed), and read one cell as a
// quantity with its unit or as one of nvidia-smi's placeholders. Lines over a bound never reach a regex.

import { notText } from '../text-input.js';

/** nvidia-smi prints a few KB (`-q` on 8 GPUs ~100 KB); anything far larger is not its output. */
export const MAX_OUTPUT_CHARS = 1_000_000;
/** No line of nvidia-smi output is this long; longer lines are never handed to a regex. */
export const MAX_LINE_CHARS = 2_000;

export const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\^\[\[[0-9;]*m/g;
/** Escapes that lost their ESC byte in a paste (`[4m` … `[0m`) at the start or end of a line. */
const BARE_SGR = /^\[[0-9;]*m|\[[0-9;]*m$/g;
/** A Markdown code fence around a paste. */
const FENCE = /^\s*(```|~~~)[\w-]*\s*$/;

/** Lines of the output with ANSI escapes, CR and code fences removed, or why it cannot be nvidia-smi output. */
export function linesOf(text: string): { lines: string[] } | { bad: string } {
  const bad = notText(text, MAX_OUTPUT_CHARS);
  if (bad) return { bad };
  const lines = text
    .split(/\r?\n|\r/)
    .map((l) => (l.length > MAX_LINE_CHARS ? l : l.replace(ANSI, '').replace(BARE_SGR, '')))
    .filter((l) => l.length > MAX_LINE_CHARS || !FENCE.test(l));
  return { lines };
}

/** nvidia-smi's placeholders for a value it could not get (CSV, table and `-q` spellings). */
export const PLACEHOLDER =
  /^\[?(N\/A|Not Found|Insufficient Permissions|Unknown Error|Not Supported|Not available(?: in WDDM driver model)?|GPU requires reset|GPU is lost|ERR!|Requested functionality has been deprecated)\]?$/i;

export const isPlaceholder = (s: string | undefined): boolean => PLACEHOLDER.test((s ?? '').trim());

const UNIT_FACTOR: Record<string, number> = { gib: 1024, kib: 1 / 1024, mib: 1 };

/**
 * A number with an optional unit (`40312`, `40312 MiB`, `40312MiB`, `45 %`, `250.50 W`, `1980 MHz`),
 * in MiB for memory; null for a placeholder; undefined when the cell is neither.
 */
export function quantity(cell: string | undefined): number | null | undefined {
  const s = (cell ?? '').trim();
  if (isPlaceholder(s)) return null;
  const m = /^(-?\d+(?:\.\d+)?)\s*(MiB|GiB|KiB|%|W|MHz|C|mV)?$/i.exec(s);
  if (!m) return undefined;
  return Number(m[1]) * (UNIT_FACTOR[(m[2] ?? '').toLowerCase()] ?? 1);
}

export const isInt = (s: string | undefined): boolean => /^\d+$/.test((s ?? '').trim());
export const isUuid = (s: string | undefined): boolean => /^(GPU|MIG)-[0-9a-fA-F-]+$/.test((s ?? '').trim());
/** A PCI bus id as nvidia-smi prints it: `00000000:18:00.0` (older drivers `0000:03:00.0`). */
export const isBusId = (s: string | undefined): boolean =>
  /^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]$/.test((s ?? '').trim());

/** A bus id compared across outputs: the 8-digit domain and the 4-digit one name the same device. */
export function busKey(busId: string | null): string | null {
  const m = busId ? /([0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])$/.exec(busId.trim()) : null;
  if (!m || !busId) return null;
  const domain = busId.trim().slice(0, -m[1].length - 1);
  return `${Number.parseInt(domain, 16)}:${m[1].toLowerCase()}`;
}

/** The message nvidia-smi prints instead of output when the driver cannot be reached, or null. */
export function failureOf(lines: string[]): string | null {
  for (const line of lines.slice(0, 20)) {
    if (line.length > MAX_LINE_CHARS) continue;
    const m =
      /(NVIDIA-SMI has failed.*|Failed to initialize NVML.*|couldn't communicate with the NVIDIA driver.*|Unable to determine the device handle.*)/i.exec(
        line,
      );
    if (m) return m[1].trim();
  }
  return null;
}

/** True when nvidia-smi says the host has no GPU. */
export function saysNoDevices(lines: string[]): boolean {
  return lines.slice(0, 40).some((l) => l.length < 200 && /^\s*No devices were found/i.test(l));
}

/** A version number read only when whole: followed by a space, `|` or the end of a line that was not cut. */
export function versionAfter(label: RegExp, line: string, lineComplete: boolean): string | null {
  const m = new RegExp(`${label.source}\\s*(\\d+(?:\\.\\d+)*|N/A)(\\s|\\||$)`).exec(line);
  if (!m || m[1] === 'N/A') return null;
  if (m[2] === '' && !lineComplete) return null;
  return m[1];
}
