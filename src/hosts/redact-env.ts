// Environment and command-line redaction: a process environment or argv read from /proc may hold API keys
// and tokens. Values of secret-looking names or flags (or values that look like keys) are replaced.
// Structured documents go through core/redact.ts.

import { REDACTED } from '../core/redact.js';

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

const SECRET_FLAG = /^--?[\w-]*(key|token|secret|passw|credential|auth)[\w-]*$/i;

/** Redacts the values of secret-looking flags in a command line (`--api-key X`, `--hf-token=X`). */
export function redactArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    if (a.startsWith('-') && eq > 0 && SECRET_FLAG.test(a.slice(0, eq)))
      out.push(`${a.slice(0, eq)}=${REDACTED}`);
    else if (SECRET_FLAG.test(a) && i + 1 < argv.length && !argv[i + 1].startsWith('-')) {
      out.push(a, REDACTED);
      i++;
    } else out.push(SECRET_VALUE.test(a) ? REDACTED : a);
  }
  return out;
}
