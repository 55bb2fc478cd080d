// Removes secrets from documents before they are stored as evidence: values of keys that name
// API keys, tokens, passwords or credentials (e.g. SGLang's server_info carries `api_key`).

const SECRET_KEY_RE =
  /(?:api_?key|secret|passw(?:or)?d|credential|authorization|(?:^|_)token$|access_token|hf_token)/i;

export const REDACTED = '<redacted>';

export function isSecretKey(key: string): boolean {
  return SECRET_KEY_RE.test(key);
}

/** Deep copy of `value` with non-empty strings (or lists, e.g. vLLM's `'api_key': ['sk']`) under secret-looking keys replaced. */
export function redactSecrets<T>(value: T): T {
  return redact(value) as T;
}

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const secretValue = (typeof v === 'string' && v !== '') || Array.isArray(v);
    out[k] = isSecretKey(k) && secretValue ? REDACTED : redact(v);
  }
  return out;
}
