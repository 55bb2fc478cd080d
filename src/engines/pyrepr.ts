// A small, tolerant parser for Python repr text as engines print it in their logs
// (`server_args=ServerArgs(...)`, vLLM `non-default args: {...}`, `... with config: a=1, b='x'`).
// It never throws: truncated or unfamiliar input yields what was parsed so far plus `complete: false`.
// A value the text ends inside (`'EAG`, `1` of `16`, `{'method': 'eagle3'`) is never kept as if it
// were whole: the field it belongs to is left out, so a reader sees it as unknown.

import { atSeparator, Cursor, readAngle, readNumber, readOpaque, readString } from './pyrepr-scalars.js';

export type PyValue = null | boolean | number | string | PyValue[] | PyObject;
/** A dict, or a call such as `Foo(a=1)` (then `__call__` holds the callee name and `__args__` positional args). */
export interface PyObject {
  [key: string]: PyValue;
}

export interface PyParse<T> {
  value: T;
  /** False when the input ended (or broke) before the value was closed. */
  complete: boolean;
  /** Index just after the parsed text. */
  end: number;
}

const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

/** Parses one Python literal starting at `start`. */
export function parsePyValue(text: string, start = 0): PyParse<PyValue | undefined> {
  const c = new Cursor(text, start);
  const value = readValue(c);
  return { value, complete: !c.truncated && value !== undefined, end: c.pos };
}

/**
 * Parses `key=value, key=value` as in the body of `ServerArgs(...)` (pass closer ')': the text must
 * reach it, else the parse is incomplete) or vLLM's `with config: ...` line (closer null: the end of
 * text or an unmatched bracket ends it). Positional items go to `__args__`.
 */
export function parsePyKwargs(text: string, start = 0, closer: ')' | null = null): PyParse<PyObject> {
  const c = new Cursor(text, start);
  const out: PyObject = {};
  readArgList(c, out, closer);
  return { value: out, complete: !c.truncated, end: c.pos };
}

/** Deeper nesting than any engine prints: the rest of the text is left unread (the parse is incomplete). */
const MAX_NESTING = 64;

function readValue(c: Cursor): PyValue | undefined {
  if (c.depth >= MAX_NESTING) {
    c.truncated = true;
    c.pos = c.s.length;
    return undefined;
  }
  c.depth++;
  try {
    return readValueAtDepth(c);
  } finally {
    c.depth--;
  }
}

/**
 * Reads a value inside a container: undefined when the text ends inside it (a quoted string left open,
 * or an unquoted word or number the text stops on, which may be the start of a longer one), so the
 * caller drops the field. A container the text ends inside keeps its complete fields.
 */
function readWholeValue(c: Cursor, endMayCloseIt: boolean): PyValue | undefined {
  c.skipWs();
  const start = c.pos;
  const quoted = /['"<]/.test(c.peek()) || /^[bBrRuUfF]['"]/.test(c.s.slice(start, start + 2));
  const v = readValue(c);
  const structured = v !== null && typeof v === 'object';
  if (c.truncated) return structured ? v : undefined;
  if (!structured && !quoted && c.atEnd() && !endMayCloseIt) {
    c.truncated = true;
    return undefined;
  }
  return v;
}

function readValueAtDepth(c: Cursor): PyValue | undefined {
  c.skipWs();
  if (c.atEnd()) {
    c.truncated = true;
    return undefined;
  }
  const ch = c.peek();
  if (ch === "'" || ch === '"') return readString(c);
  if (/[bBrRuUfF]/.test(ch) && /['"]/.test(c.s[c.pos + 1] ?? '')) {
    c.pos++;
    return readString(c);
  }
  if (ch === '[' || ch === '(') return readSequence(c);
  if (ch === '{') return readDictOrSet(c);
  if (ch === '<') return readAngle(c);
  if (/[-+\d.]/.test(ch)) {
    const before = c.pos;
    const num = readNumber(c);
    if (num !== undefined && atSeparator(c)) return num;
    c.pos = before; // e.g. `7b-chat` or `0.5-fp8`: an unquoted word, not a number
    if (num !== undefined) return readOpaque(c);
  }
  if (/[A-Za-z_]/.test(ch)) return readNameOrCall(c);
  // Unknown character: take it as an opaque token up to the next separator.
  return readOpaque(c);
}

const NAMED_CONSTANTS: Record<string, PyValue> = {
  None: null,
  True: true,
  False: false,
  inf: Infinity,
  nan: Number.NaN,
};

function readNameOrCall(c: Cursor): PyValue {
  const m = /^[A-Za-z_][\w.]*/.exec(c.s.slice(c.pos, c.pos + 200))!;
  if (c.s[c.pos + m[0].length] !== '(' && !atSeparator(c, c.pos + m[0].length)) {
    // vLLM prints some values unquoted: served_model_name=org/model-7b, quantization=compressed-tensors
    return readOpaque(c);
  }
  c.pos += m[0].length;
  const name = m[0];
  if (c.peek() === '(') {
    c.pos++;
    const obj: PyObject = { __call__: name };
    readArgList(c, obj, ')');
    return obj;
  }
  // enum members, dtype names (torch.bfloat16), etc. stay text
  return name in NAMED_CONSTANTS ? NAMED_CONSTANTS[name] : name;
}

/** Reads `a, b=1, ...` until `closer` (consumed) or end of text (truncated when a closer was expected). */
function readArgList(c: Cursor, out: PyObject, closer: string | null): void {
  const positional: PyValue[] = [];
  for (;;) {
    c.skipWs();
    if (c.atEnd()) {
      if (closer !== null) c.truncated = true;
      break;
    }
    const ch = c.peek();
    if (ch === closer || (closer === null && /[)\]}]/.test(ch))) {
      if (ch === closer) c.pos++;
      break;
    }
    if (ch === ',') {
      c.pos++;
      continue;
    }
    const kw = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(c.s.slice(c.pos, c.pos + 200));
    const before = c.pos;
    if (kw) c.pos += kw[0].length;
    const v = readWholeValue(c, closer === null);
    if (v !== undefined) {
      if (kw) out[kw[1]] = v;
      else positional.push(v);
    }
    if (c.truncated) break;
    if (c.pos === before) c.pos++; // never loop on an unparseable character
  }
  if (positional.length > 0) out.__args__ = positional;
}

function readSequence(c: Cursor): PyValue[] {
  const closer = CLOSERS[c.peek()];
  c.pos++;
  const items: PyValue[] = [];
  for (;;) {
    c.skipWs();
    if (c.atEnd()) {
      c.truncated = true;
      return items;
    }
    const ch = c.peek();
    if (ch === closer) {
      c.pos++;
      return items;
    }
    if (ch === ',') {
      c.pos++;
      continue;
    }
    if (/[)\]}]/.test(ch)) {
      // mismatched closer: stop here and let the caller see it
      c.truncated = true;
      return items;
    }
    const before = c.pos;
    const v = readWholeValue(c, false);
    if (v !== undefined) items.push(v);
    if (c.truncated) return items;
    if (c.pos === before) c.pos++;
  }
}

/** One `key: value` (or set item) of a dict body; a key or value the text ends inside is left out. */
function readDictEntry(c: Cursor, obj: PyObject, setItems: PyValue[]): void {
  const key = readWholeValue(c, false);
  if (c.truncated) return;
  c.skipWs();
  if (c.peek() === ':') {
    c.pos++;
    const v = readWholeValue(c, false);
    if (key !== undefined && v !== undefined) obj[keyString(key)] = v;
  } else if (key !== undefined) {
    setItems.push(key);
  }
}

function readDictOrSet(c: Cursor): PyValue {
  c.pos++;
  const obj: PyObject = {};
  const setItems: PyValue[] = [];
  for (;;) {
    c.skipWs();
    if (c.atEnd()) {
      c.truncated = true;
      break;
    }
    const ch = c.peek();
    if (ch === '}') {
      c.pos++;
      break;
    }
    if (ch === ',') {
      c.pos++;
      continue;
    }
    if (/[)\]]/.test(ch)) {
      c.truncated = true;
      break;
    }
    const before = c.pos;
    readDictEntry(c, obj, setItems);
    if (c.truncated) break;
    if (c.pos === before) c.pos++;
  }
  return setItems.length > 0 && Object.keys(obj).length === 0 ? setItems : obj;
}

function keyString(k: PyValue): string {
  return typeof k === 'string' ? k : JSON.stringify(k);
}
