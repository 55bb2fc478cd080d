// Environment redaction: a process environment read from /proc may hold API keys and tokens.
// Values of secret-looking names (or values that look like keys) are replaced before anyone sees them.

export const REDACTED = '<redacted>';

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE|SESSION|SIGNATURE)/i;
const SECRET_VALUE = /^(sk-|hf_|ghp_|gho_|github_pat_|xox[abp]-|AKIA|eyJ)[A-Za-z0-9_\-.]{8,}/;

export function isSecretLooking(name: string, value: string): boolean {
  return SECRET_NAME.test(name) || SECRET_VALUE.test(value) || /:\/\/[^/\s:@]+:[^/\s@]+@/.test(value);
}

/** Returns a copy with the values of secret-looking entries replaced by "<redacted>". */
export function redactEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = isSecretLooking(k, v) ? REDACTED : v;
  return out;
}
