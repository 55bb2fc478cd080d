// benchgate's own version, read once from package.json (recorded in every manifest).

import { readFileSync } from 'node:fs';

let cached: string | null = null;

export function benchgateVersion(): string {
  if (cached) return cached;
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  cached = pkg.version;
  return cached;
}
