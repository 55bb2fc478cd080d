import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProfile } from './profiles.js';

function file(name: string, text: string): string {
  const p = join(mkdtempSync(join(tmpdir(), 'bg-prof-')), name);
  writeFileSync(p, text);
  return p;
}

describe('simulator profiles', () => {
  it('resolves the built-in profiles by name', () => {
    expect(resolveProfile('story-moe-int4-8xpcie').numGpus).toBe(8);
    expect(resolveProfile('dense-8b-1gpu').expertParamsB).toBe(0);
    expect(resolveProfile('fixed').kind).toBe('fixed');
  });

  it('loads a YAML profile on top of a base profile', () => {
    const p = resolveProfile(file('p.yaml', 'base: dense-8b-1gpu\nnumGpus: 2\nmodelPath: org/custom\n'));
    expect(p.numGpus).toBe(2);
    expect(p.modelPath).toBe('org/custom');
    expect(p.denseParamsB).toBe(8);
  });

  it('names the key and the line of a bad value', () => {
    const path = file('bad.yaml', 'base: dense-8b-1gpu\nnumGpus: 2\nmemBandwidthGBs: fast\n');
    expect(() => resolveProfile(path)).toThrowError(
      `Profile ${path}:3: key "memBandwidthGBs" expects a non-negative number; found "fast".`,
    );
  });

  it('names an unknown key and its line, also in JSON', () => {
    const path = file('bad.json', '{\n  "numGpus": 2,\n  "gpuCount": 4\n}\n');
    expect(() => resolveProfile(path)).toThrowError(new RegExp(`Profile ${path}:3: unknown key "gpuCount"`));
  });

  it('rejects an unknown profile name with the valid choices', () => {
    expect(() => resolveProfile('h100-magic')).toThrowError(
      /one of story-moe-int4-8xpcie, dense-8b-1gpu, fixed/,
    );
  });
});
