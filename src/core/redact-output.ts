// Scrubs one line of a launched server's own output (its log, its echo of its arguments) before
// benchgate writes, shows or quotes it: the exact secret values benchgate knows, credential shapes
// (core/redact.ts), and the values of credential-named fields as servers print them: vLLM's
// `non-default args: {'api_key': ['…']}`, a Python repr `ServerArgs(api_key='…')`, `"hf_token": "…"`,
// `api_key=…`. A field is judged by its name's whole words (isCredentialName), so
// `max_num_batched_tokens=8192` stays readable.

import { isCredentialName, REDACTED, redactString } from './redact.js';

/**
 * A field name (optionally quoted) and its separator, then its value: a list, a quoted string or a bare
 * word. The name must start a word (the look-behind), so a long run of word characters is scanned once.
 */
const FIELD =
  /(?<![\w.-])(['"]?)([A-Za-z][\w.-]{0,80})\1(\s*[:=]\s*)(\[[^\]\n]{0,4096}\]|'[^'\n]{0,4096}'|"[^"\n]{0,4096}"|[^\s,;)}\]]+)/g;

/** Values that say nothing (`'api_key': None`), or an auth scheme whose credential redactString took. */
const HARMLESS = /^(\[\]|''|""|None|null|none|true|false|True|False|Bearer|Basic|Token|<redacted>)$/;

function redactFields(line: string): string {
  return line.replace(FIELD, (whole, q: string, name: string, sep: string, value: string) => {
    if (!isCredentialName(name) || HARMLESS.test(value)) return whole;
    const shape = value.startsWith('[')
      ? `['${REDACTED}']`
      : value.startsWith("'")
        ? `'${REDACTED}'`
        : value.startsWith('"')
          ? `"${REDACTED}"`
          : REDACTED;
    return `${q}${name}${q}${sep}${shape}`;
  });
}

/** One line of server output with every known secret value and credential removed. */
export function redactOutputLine(line: string, secrets: readonly string[]): string {
  return redactFields(redactString(line, secrets));
}
