// Keeps secrets out of everything benchgate writes: header values, credentials in URLs, key-like
// strings, and the exact secret values in use (API key, header values) wherever they appear.

const REDACTED = '<redacted>';
const KEY_LIKE =
  /\b(sk-[A-Za-z0-9_-]{8,}|hf_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{16,}|xox[abp]-[A-Za-z0-9-]{8,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)/g;
const BEARER = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/@\s:]+(:[^/@\s]*)?@/gi;
const SECRET_QUERY = /([?&](?:api[_-]?key|key|token|access_token|auth|signature|sig)=)[^&#\s]+/gi;

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
    .replace(KEY_LIKE, REDACTED);
}

const SECRET_KEY_NAME = /(authorization|api[_-]?key|token|secret|password|cookie|credential)/i;

/**
 * Deep copy with secrets removed: every value under a `headers` object, every value whose key name
 * looks secret (except `api_key_env`, which names a variable), and secret-looking substrings.
 */
export function redactDeep<T>(value: T, secrets: readonly string[] = []): T {
  const walk = (v: unknown, key: string | null, underHeaders: boolean): unknown => {
    if (typeof v === 'string') {
      if (underHeaders || (key !== null && key !== 'api_key_env' && SECRET_KEY_NAME.test(key)))
        return REDACTED;
      return redactString(v, secrets);
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, null, false));
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
