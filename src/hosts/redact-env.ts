// Environment and command-line redaction: a process environment or argv read from /proc may hold API keys
// and tokens. Values of credential names or flags (`*_TOKEN`, `*_KEY`, passwords, secrets; `--api-key`,
// `--hf-token`, judged by whole words in core/redact.ts) and values that look like keys are replaced;
// configuration that merely mentions tokens (`--max-num-batched-tokens`) stays readable.

import { isCredentialName, REDACTED } from '../core/redact.js';

const SECRET_VALUE = /^(sk-|hf_|ghp_|gho_|github_pat_|xox[abp]-|AKIA|eyJ)[A-Za-z0-9_\-.]{8,}/;

export function isSecretLooking(name: string, value: string): boolean {
  return isCredentialName(name) || SECRET_VALUE.test(value) || /:\/\/[^/\s:@]+:[^/\s@]+@/.test(value);
}

/** Returns a copy with the values of secret-looking entries replaced by "<redacted>". */
export function redactEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = isSecretLooking(k, v) ? REDACTED : v;
  return out;
}

/** A flag (`--api-key`, `-hf-token`) whose value is a credential. */
const isSecretFlag = (arg: string) => /^--?[A-Za-z]/.test(arg) && isCredentialName(arg);

/** Redacts the values of secret-looking flags in a command line (`--api-key X`, `--hf-token=X`). */
export function redactArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.indexOf('=');
    if (a.startsWith('-') && eq > 0 && isSecretFlag(a.slice(0, eq)))
      out.push(`${a.slice(0, eq)}=${REDACTED}`);
    else if (eq < 0 && isSecretFlag(a) && i + 1 < argv.length && !argv[i + 1].startsWith('-')) {
      out.push(a, REDACTED);
      i++;
    } else out.push(SECRET_VALUE.test(a) ? REDACTED : a);
  }
  return out;
}
