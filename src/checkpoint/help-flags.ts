// Reads the set of flags a tool accepts from its help text: argparse (`usage: x [--flag N]`,
// `  -n N, --num-prompts N`), commander (`  -c, --concurrency <n>`) and yargs (`  --rate  desc  [number]`).

const FLAG = /(?:^|[\s,[|(])(--?[A-Za-z0-9][\w-]*)/g;

function flagsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FLAG)) out.push(m[1]);
  return out;
}

/** Every flag the help text declares (option lines and the usage block), with `--[no-]x` expanded. */
export function parseHelpFlags(helpText: string): Set<string> {
  const flags = new Set<string>();
  const lines = helpText.replace(/--\[no-\]([\w-]+)/g, '--$1, --no-$1').split(/\r?\n/);
  let inUsage = false;
  for (const raw of lines) {
    const line = raw.replace(/\t/g, '    ');
    if (/^\s*usage:/i.test(line)) inUsage = true;
    else if (inUsage && (line.trim() === '' || !/^\s/.test(line))) inUsage = false;
    if (inUsage) {
      for (const f of flagsIn(line.replace(/^\s*usage:\s*\S+/i, ' '))) flags.add(f);
      continue;
    }
    const trimmed = line.trimStart();
    if (!trimmed.startsWith('-')) continue;
    // the option spec ends at the first run of two spaces (the description column)
    const spec = trimmed.split(/\s{2,}/)[0];
    for (const f of flagsIn(` ${spec}`)) flags.add(f.replace(/=.*$/, ''));
  }
  return flags;
}

/** The wanted flags the tool does not accept (a `--flag=value` form is judged by its flag). */
export function missingFlags(accepted: Set<string>, wanted: string[]): string[] {
  return wanted.filter((w) => !accepted.has(w.replace(/=.*$/, '')));
}
