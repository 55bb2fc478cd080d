// Every JSON file a run writes is strict JSON (issue 33 item 11): a string from outside (a server's
// "\ud800" escape, read by JSON.parse) that holds an unpaired surrogate is written with U+FFFD in its
// place, in values and keys, so jq and other strict parsers read the manifest (JSON.stringify alone writes
// the escape back, which jq refuses).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasTool } from '../test-support/needs.js';
import type { Manifest } from './layout.js';
import { writeManifest } from './run-store.js';

const dir = mkdtempSync(join(tmpdir(), 'bg-strict-json-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('manifest.json', () => {
  it('is strict JSON that jq reads when a server string holds an unpaired surrogate, in a value or a key', () => {
    const fromServer = JSON.parse(
      '{"served_model_name": "m\\ud800x", "\\udbffkey": ["a\\udc00"], "pair": "🚀"}',
    );
    writeManifest(dir, {
      schema: 'benchgate.manifest/1',
      runId: 'r',
      name: 'n',
      raw: fromServer,
    } as unknown as Manifest);
    const text = readFileSync(join(dir, 'manifest.json'), 'utf8');
    expect(text).not.toMatch(/\\ud[89a-f]/i);
    expect(JSON.parse(text).raw).toEqual({
      served_model_name: 'm\uFFFDx',
      '\uFFFDkey': ['a\uFFFD'],
      pair: '🚀',
    });
    if (!hasTool('/usr/bin/jq', 'the jq check of manifest.json', 'apt-get install jq')) return;
    const jq = spawnSync('/usr/bin/jq', ['-c', '.raw', join(dir, 'manifest.json')], { encoding: 'utf8' });
    expect(jq.status, jq.stderr).toBe(0);
    expect(JSON.parse(jq.stdout)).toEqual({
      served_model_name: 'm\uFFFDx',
      '\uFFFDkey': ['a\uFFFD'],
      pair: '🚀',
    });
  });
});
