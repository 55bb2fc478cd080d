// The one place that decides what a secret looks like in a document benchgate stores or prints:
// values under credential names or any `headers` object, credentials in URLs, bearer tokens,
// key-shaped strings, and the exact secret values in use. (Process env and argv: hosts/redact-env.ts.)
// A name is judged by its whole words, so `--hf-token`, `api_key` and `HF_TOKEN` are credentials while
// `--speculative-num-draft-tokens`, `max_total_tokens` and `num_key_value_heads` stay readable.

export const REDACTED = '<redacted>';

const KEY_LIKE =
  /\b(sk-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{16,}|xox[abp]-[A-Za-z0-9-]{8,}|AKIA[0-9A-Z]{16}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)/g;
/** An auth scheme's credential: any value after "Bearer" (a word prose does not use)... */
const BEARER = /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
/**
 * ...but after "Basic" / "Token" only a value shaped like a credential (letters and digits, 8+ chars, or
 * 20+ chars), so "no token arrived within the first-token timeout" stays as written.
 */
const SCHEME_CREDENTIAL =
  /\b(Basic|Token)\s+(?=[A-Za-z0-9._~+/=-]*\d)(?=[A-Za-z0-9._~+/=-]*[A-Za-z])[A-Za-z0-9._~+/=-]{8,}|\b(Basic|Token)\s+[A-Za-z0-9._~+/=-]{20,}/gi;
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s:]+(:[^/@\s]*)?@/gi;
const SECRET_QUERY = /([?&](?:api[_-]?key|key|token|access_token|auth|signature|sig)=)[^&#\s]+/gi;
/** Words that make any name a credential, wherever they stand in it. */
const CREDENTIAL_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'secrets',
  'credential',
  'credentials',
  'cookie',
  'authorization',
  'authtoken',
  'apikey',
]);
/** A name ending in one of these is a credential (`hf_token`, `api_key`, `OPENAI_API_KEY`, `BASIC_AUTH`)... */
const CREDENTIAL_LAST_WORDS = new Set(['token', 'key', 'keys', 'auth']);
/** ...unless the word before it says it counts or names tokens (`experts_per_token`, `time_to_first_token`, `pad_token`). */
const TOKEN_QUALIFIERS = new Set(
  'per first last next new num max min each special pad bos eos eot eom sep cls unk mask bonus draft start end stop input output prompt image audio video vision tool think reasoning fim decoder cache sort partition routing hash primary foreign dict map'.split(
    ' ',
  ),
);

/** The lower-case words of a flag, key or variable name: `--hf-token`, `X-Api-Key`, `apiKey`, `HF_TOKEN`. */
export function nameWords(name: string): string[] {
  return name
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[-_.\s]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== '');
}

/** A name that starts with one of these is a limit or a count (`max_prompt_adapter_token`), never a credential. */
const COUNT_PREFIXES = new Set(['max', 'min', 'num', 'n']);

/** True for a name whose value is a credential, judged by whole words (see the header). */
export function isCredentialName(name: string): boolean {
  const words = nameWords(name);
  if (words.some((w) => CREDENTIAL_WORDS.has(w))) return true;
  const last = words[words.length - 1];
  if (last === undefined || !CREDENTIAL_LAST_WORDS.has(last) || COUNT_PREFIXES.has(words[0])) return false;
  const before = words[words.length - 2];
  return before === undefined || !TOKEN_QUALIFIERS.has(before);
}

/** True for a key whose value is a secret; `api_key_env` names a variable and is not one. */
export function isSecretKey(key: string): boolean {
  return isCredentialName(key);
}

/** Removes known secret values and anything that looks like a credential from one string. */
export function redactString(s: string, secrets: readonly string[] = []): string {
  let out = s;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(SECRET_QUERY, `$1${REDACTED}`)
    .replace(BEARER, `$1 ${REDACTED}`)
    .replace(SCHEME_CREDENTIAL, (_m, a: string | undefined, b: string | undefined) => `${a ?? b} ${REDACTED}`)
    .replace(KEY_LIKE, REDACTED);
}

/**
 * Deep copy with secrets removed: every string under a `headers` object, every non-empty string or list
 * under a secret key (vLLM logs `'api_key': ['sk']`), and secret-looking substrings of all other strings.
 * Numbers, booleans and nulls stay, so configuration such as max_total_num_tokens is kept.
 */
export function redactDeep<T>(value: T, secrets: readonly string[] = []): T {
  const walk = (v: unknown, key: string | null, underHeaders: boolean): unknown => {
    const secretKey = key !== null && isSecretKey(key);
    if (typeof v === 'string') {
      if (underHeaders || (secretKey && v !== '')) return REDACTED;
      return redactString(v, secrets);
    }
    if (Array.isArray(v))
      return secretKey && v.length > 0 ? REDACTED : v.map((x) => walk(x, null, underHeaders));
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v))
        out[k] = walk(x, k, underHeaders || k.toLowerCase() === 'headers');
      return out;
    }
    return v;
  };
  return walk(value, null, false) as T;
}
