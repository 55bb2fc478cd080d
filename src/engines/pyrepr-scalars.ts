// The scalar pieces of Python repr text (quoted strings with escapes, numbers, `<Enum.X: 1>` reprs and
// unquoted words vLLM prints as values), read from a shared cursor. pyrepr.ts builds containers on them.

/** A read position in repr text; `truncated` is set when the text ended inside a value. */
export class Cursor {
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

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0' };

/** One backslash escape at `c.pos` (just after the backslash's successor was read as `next`). */
function readEscape(c: Cursor, next: string): string {
  if (next in ESCAPES) return ESCAPES[next];
  const width = next === 'x' ? 2 : next === 'u' ? 4 : 0;
  if (width === 0) return next;
  const code = Number.parseInt(c.s.slice(c.pos, c.pos + width), 16) || 0;
  c.pos += width;
  return String.fromCharCode(code);
}

/** A quoted string (single, double or triple quotes); truncated when the text ends before its closing quote. */
export function readString(c: Cursor): string {
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
      out += readEscape(c, next);
      continue;
    }
    out += ch;
    c.pos++;
  }
  c.truncated = true;
  return out;
}

export function readNumber(c: Cursor): number | undefined {
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

/** `<SomeEnum.X: 1>` style reprs become their text. */
export function readAngle(c: Cursor): string {
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
export function atSeparator(c: Cursor, at = c.pos): boolean {
  const ch = c.s[at];
  return ch === undefined || /[\s,)\]}]/.test(ch) || (ch === ':' && /\s/.test(c.s[at + 1] ?? ' '));
}

const OPAQUE_RE = /(?:[^,)\]}\s:]|:(?!\s))+/y;

/** An unquoted token up to the next separator (`,`, a closer, whitespace, or `: `). */
export function readOpaque(c: Cursor): string {
  OPAQUE_RE.lastIndex = c.pos;
  const m = OPAQUE_RE.exec(c.s);
  const t = m ? m[0] : c.s[c.pos];
  c.pos += t.length;
  return t;
}
