// The LogReading every adapter builds alike from its start markers: where each start begins, the ready
// line, the crashes and failure of the current start, and its speculative-decoding acceptance lines.
// An adapter contributes only its markers, its failure signatures and its acceptance-line parser.

import { type FailureSignatures, findCrashes, findFailedStart } from './log-crashes.js';
import { type LogLine, lineTimestamp } from './logtext.js';
import type { AcceptanceReading, AcceptanceSample, LogReading } from './types.js';

/**
 * Index of the first line that belongs to the start whose marker is at `markerIdx`: walks back over
 * lines printed shortly before the marker (within `maxGapS` of its timestamp), stopping after
 * `floorIdx` and at any line `isForeign` says belongs to an earlier run (ready line, crash, traffic).
 */
export function startRegionFirst(
  lines: LogLine[],
  markerIdx: number,
  floorIdx: number,
  isForeign: (text: string) => boolean,
  maxGapS = 300,
): number {
  const markerIso = lineTimestamp(lines[markerIdx].text);
  const markerMs = markerIso ? Date.parse(markerIso) : null;
  let first = markerIdx;
  for (let i = markerIdx - 1; i > floorIdx; i--) {
    const text = lines[i].text;
    if (isForeign(text)) break;
    const iso = lineTimestamp(text);
    if (iso && markerMs !== null) {
      const gapMs = markerMs - Date.parse(iso);
      if (gapMs > maxGapS * 1000 || gapMs < 0) break;
    }
    first = i;
  }
  // Do not start a region on blank or unstamped lines that merely trail the previous run.
  while (first < markerIdx && lineTimestamp(lines[first].text) === null) first++;
  return first;
}

/** Indices of the lines `isStart` recognises as a server start marker. */
export function startIndices(lines: readonly LogLine[], isStart: (text: string) => boolean): number[] {
  const starts: number[] = [];
  lines.forEach((l, i) => {
    if (isStart(l.text)) starts.push(i);
  });
  return starts;
}

/** The lines after the last start marker; the whole log when it has none. */
export function linesAfterLastStart(lines: LogLine[], starts: readonly number[]): LogLine[] {
  return starts.length > 0 ? lines.slice(starts[starts.length - 1] + 1) : lines;
}

/** Reads one log line as a speculative-decoding acceptance sample, or null when it is not one. */
export type AcceptanceParser = (text: string) => AcceptanceSample | null;

/** Mean acceptance length at or below this (1.00 printed with two decimals) means nothing was accepted. */
const NEVER_ACCEPTED_MEAN_LENGTH = 1.005;

function emptyAcceptance(line: number): AcceptanceReading {
  return {
    lines: 0,
    firstLine: line,
    lastLine: line,
    maxMeanLength: null,
    acceptedTokens: null,
    draftedTokens: null,
    neverAccepted: true,
    excerpt: '',
  };
}

/** Adds one sample: interval counts are summed, cumulative counts (since the server started) replace. */
function addSample(out: AcceptanceReading, s: AcceptanceSample): void {
  if (s.meanLength !== undefined) out.maxMeanLength = Math.max(out.maxMeanLength ?? 0, s.meanLength);
  if (s.accepted !== undefined)
    out.acceptedTokens = s.cumulative ? s.accepted : (out.acceptedTokens ?? 0) + s.accepted;
  if (s.drafted !== undefined)
    out.draftedTokens = s.cumulative ? s.drafted : (out.draftedTokens ?? 0) + s.drafted;
}

/** The acceptance lines in `lines` summed up; null when there are none. */
export function readAcceptance(lines: readonly LogLine[], parse: AcceptanceParser): AcceptanceReading | null {
  let out: AcceptanceReading | null = null;
  for (const l of lines) {
    const s = parse(l.text);
    if (!s) continue;
    out ??= emptyAcceptance(l.line);
    out.lines++;
    out.lastLine = l.line;
    out.excerpt = l.text.trim().slice(0, 300);
    addSample(out, s);
  }
  if (out) {
    const noneByCount = out.acceptedTokens === null || out.acceptedTokens === 0;
    const noneByLength = out.maxMeanLength === null || out.maxMeanLength <= NEVER_ACCEPTED_MEAN_LENGTH;
    out.neverAccepted = noneByCount && noneByLength;
  }
  return out;
}

/** What an adapter adds to the shared log reading: its failure signatures and acceptance lines. */
export interface LogSignatures extends FailureSignatures {
  acceptance?: AcceptanceParser;
}

/**
 * The LogReading every adapter fills alike from its start markers: their line numbers and times, the
 * first ready line, the crashes, how the current start died and the acceptance lines after the last
 * start. `regionFirst` (indices) defaults to the markers.
 */
export function logReadingFromStarts(
  lines: LogLine[],
  starts: readonly number[],
  isReady: (text: string) => boolean,
  facts: LogReading['facts'],
  regionFirst: readonly number[] = starts,
  signatures: LogSignatures = {},
): LogReading {
  const after = linesAfterLastStart(lines, starts);
  const ready = after.find((l) => isReady(l.text));
  return {
    facts,
    startMarkerLines: starts.map((i) => lines[i].line),
    startRegionFirstLines: regionFirst.map((i) => lines[i].line),
    startMarkerTimes: starts.map((i) => lineTimestamp(lines[i].text)),
    readyLine: ready ? ready.line : null,
    crashes: findCrashes(after),
    failedStart: findFailedStart(after, signatures, isReady),
    acceptance: signatures.acceptance ? readAcceptance(after, signatures.acceptance) : null,
  };
}
