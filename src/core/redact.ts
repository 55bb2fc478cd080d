// The one place that decides what a secret looks like in a document benchgate stores or prints:
// values under secret-named keys or any `headers` object, credentials in URLs, bearer tokens,
// key-shaped strings, and the exact secret values in use. (Process env and argv: hosts/redact-env.ts.)

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
/** Key names that hold secrets (api_key, hf_token, Authorization, ...), not ones that merely mention tokens. */
const SECRET_KEY_NAME =
  /(api[_-]?key|secret|passw(?:or)?d|credential|authorization|cookie|(?:^|[_-])token$|access[_-]?token|hf[_-]?token)/i;

/** True for a key whose value is a secret; `api_key_env` names a variable and is not one. */
export function isSecretKey(key: string): boolean {
  return key !== 'api_key_env' && SECRET_KEY_NAME.test(key);
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
