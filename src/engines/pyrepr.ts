// A small, tolerant parser for Python repr text as engines print it in their logs
// (`server_args=ServerArgs(...)`, vLLM `non-default args: {...}`, `... with config: a=1, b='x'`).
// It never throws: truncated or unfamiliar input yields what was parsed so far plus `complete: false`.

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

class Cursor {
  pos: number;
  truncated = false;
  /** Nesting depth of the value being read (bounded, so hostile input cannot exhaust the stack). */
  depth = 0;
  constructor(
    readonly s: string,
    start: number,
  ) {
    this.pos = start;
  }
  skipWs(): void {
    while (this.pos < this.s.length && /\s/.test(this.s[this.pos])) this.pos++;
  }
  peek(): string {
    return this.s[this.pos] ?? '';
  }
  atEnd(): boolean {
    return this.pos >= this.s.length;
  }
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

function readString(c: Cursor): string {
  const quote = c.s[c.pos];
  const triple = c.s.startsWith(quote.repeat(3), c.pos);
  c.pos += triple ? 3 : 1;
  let out = '';
  while (!c.atEnd()) {
    const ch = c.s[c.pos];
    if (triple ? c.s.startsWith(quote.repeat(3), c.pos) : ch === quote) {
      c.pos += triple ? 3 : 1;
      return out;
    }
    if (ch === '\\') {
      const next = c.s[c.pos + 1];
      if (next === undefined) break;
      c.pos += 2;
      switch (next) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case '0':
          out += '\0';
          break;
        case 'x': {
          out += String.fromCharCode(Number.parseInt(c.s.slice(c.pos, c.pos + 2), 16) || 0);
          c.pos += 2;
          break;
        }
        case 'u': {
          out += String.fromCharCode(Number.parseInt(c.s.slice(c.pos, c.pos + 4), 16) || 0);
          c.pos += 4;
          break;
        }
        default:
          out += next;
      }
      continue;
    }
    out += ch;
    c.pos++;
  }
  c.truncated = true;
  return out;
}

function readNumber(c: Cursor): number | undefined {
  const m = /^[-+]?(?:\d[\d_]*\.?[\d_]*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf\b|nan\b)/.exec(
    c.s.slice(c.pos, c.pos + 64),
  );
  if (!m) return undefined;
  c.pos += m[0].length;
  const t = m[0].replace(/_/g, '');
  if (/inf$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/nan$/.test(t)) return Number.NaN;
  return Number(t);
}

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
  switch (name) {
    case 'None':
      return null;
    case 'True':
      return true;
    case 'False':
      return false;
    case 'inf':
      return Infinity;
    case 'nan':
      return Number.NaN;
    default:
      return name; // enum members, dtype names (torch.bfloat16), etc.
  }
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
    if (kw) {
      c.pos += kw[0].length;
      const v = readValue(c);
      if (v !== undefined) out[kw[1]] = v;
    } else {
      const before = c.pos;
      const v = readValue(c);
      if (v !== undefined) positional.push(v);
      if (c.pos === before) c.pos++; // never loop on an unparseable character
    }
    if (c.truncated) break;
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
    const v = readValue(c);
    if (v !== undefined) items.push(v);
    if (c.truncated) return items;
    if (c.pos === before) c.pos++;
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
    const key = readValue(c);
    if (c.truncated) break;
    c.skipWs();
    if (c.peek() === ':') {
      c.pos++;
      const v = readValue(c);
      if (key !== undefined && v !== undefined) obj[keyString(key)] = v;
      if (c.truncated) break;
    } else if (key !== undefined) {
      setItems.push(key);
    }
    if (c.pos === before) c.pos++;
  }
  return setItems.length > 0 && Object.keys(obj).length === 0 ? setItems : obj;
}

function keyString(k: PyValue): string {
  return typeof k === 'string' ? k : JSON.stringify(k);
}

/** `<SomeEnum.X: 1>` style reprs become their text. */
function readAngle(c: Cursor): string {
  const close = c.s.indexOf('>', c.pos);
  if (close < 0) {
    c.truncated = true;
    const t = c.s.slice(c.pos);
    c.pos = c.s.length;
    return t;
  }
  const t = c.s.slice(c.pos, close + 1);
  c.pos = close + 1;
  return t;
}

/** True when `at` is at a value boundary: end, whitespace, a comma, a closer, or `: ` (dict key). */
function atSeparator(c: Cursor, at = c.pos): boolean {
  const ch = c.s[at];
  return ch === undefined || /[\s,)\]}]/.test(ch) || (ch === ':' && /\s/.test(c.s[at + 1] ?? ' '));
}

/** An unquoted token up to the next separator (`,`, a closer, whitespace, or `: `). */
function readOpaque(c: Cursor): string {
  const m = /^(?:[^,)\]}\s:]|:(?!\s))+/.exec(c.s.slice(c.pos));
  const t = m ? m[0] : c.s[c.pos];
  c.pos += t.length;
  return t;
}
