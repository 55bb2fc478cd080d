// JSON as Python's json module writes it: standard JSON plus bare `Infinity`, `-Infinity` and `NaN`
// (SGLang/vLLM server_info, bench_serving results). One parser for server documents and imported files.

const MARK = '\u0000bgnum:';

/** Replaces bare Infinity/-Infinity/NaN outside strings with marker strings, leaving strings intact. */
function replaceBareNonFinite(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    const m = /^(-?Infinity|NaN)/.exec(text.slice(i, i + 9));
    if (m && !/[A-Za-z0-9_]/.test(text[i - 1] ?? '')) {
      out += JSON.stringify(MARK + m[1]);
      i += m[1].length;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

function decodeNonFinite(v: string): unknown {
  if (!v.startsWith(MARK)) return v;
  const token = v.slice(MARK.length);
  return token === 'NaN' ? Number.NaN : token === '-Infinity' ? -Infinity : Infinity;
}

/** Parses Python-flavoured JSON; throws JSON.parse's SyntaxError (for the text as given) when it is not JSON. */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const rewritten = replaceBareNonFinite(text);
    if (rewritten === text) throw e;
    try {
      return JSON.parse(rewritten, (_k, v) => (typeof v === 'string' ? decodeNonFinite(v) : v));
    } catch {
      throw e;
    }
  }
}

/** Like parsePythonJson, but undefined for text that is not JSON (an HTML error page, a truncated body). */
export function tryParsePythonJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '' || !/^[[{"\d\-tfnNI]/.test(trimmed)) return undefined;
  try {
    return parsePythonJson(trimmed);
  } catch {
    return undefined;
  }
}
