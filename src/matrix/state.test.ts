import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { VerifiedTarget } from '../engines/types.js';
import {
  type ConfigState,
  decideAfterCheckpoint,
  decideBeforeLaunch,
  levelsOutsidePlan,
  MATRIX_STATE_FILE,
  newMatrixState,
  readMatrixState,
  verifiedConfigHash,
  writeMatrixState,
} from './state.js';
import { signed } from './state-integrity.js';

const dirs: string[] = [];

/** Writes a state as benchgate would sign it (this user's key), whatever its content: the field checks still apply. */
async function writeSigned(file: string, state: object): Promise<void> {
  await writeFile(file, JSON.stringify(signed(state)), { mode: 0o600 });
}
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

function target(topk: number, startTime: string): VerifiedTarget {
  return {
    url: 'http://127.0.0.1:1',
    engine: 'sglang',
    engineVersion: '0.5.0',
    model: 'm',
    config: { 'speculative.topk': { value: topk, source: 'GET /server_info' } },
    raw: {},
    processStartTime: startTime,
    fingerprint: `fp-${topk}-${startTime}`,
  };
}

function prev(over: Partial<ConfigState>): ConfigState {
  return {
    name: 'a',
    status: 'running',
    launchFingerprint: 'L1',
    verifiedConfigHash: 'H1',
    completedLevels: [0, 1],
    lastPid: null,
    failure: null,
    supersededRuns: [],
    ...over,
  };
}

describe('matrix state file', () => {
  it('round-trips through an atomic write', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bg-state-'));
    dirs.push(dir);
    const s = newMatrixState('m1', '/p.yaml');
    s.configs.a = prev({});
    await writeMatrixState(dir, s);
    const back = await readMatrixState(dir);
    expect(back?.configs.a.completedLevels).toEqual([0, 1]);
  });

  it('returns null for a directory without state and rejects a foreign file with a clear message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bg-state-'));
    dirs.push(dir);
    expect(await readMatrixState(dir)).toBeNull();
    await writeFile(join(dir, MATRIX_STATE_FILE), '{"hello": 1}');
    await expect(readMatrixState(dir)).rejects.toThrow(/not a benchgate matrix state file/);
    await writeFile(join(dir, MATRIX_STATE_FILE), '{trunc');
    await expect(readMatrixState(dir)).rejects.toThrow(/not valid JSON/);
  });
});

describe('a matrix state file benchgate did not write', () => {
  it('refuses a file edited by hand, an unsigned one and one others may write, naming the file and why', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bg-state-'));
    dirs.push(dir);
    const file = join(dir, MATRIX_STATE_FILE);
    const s = newMatrixState('m1', null);
    s.configs.a = prev({ lastPid: 4242, lastStartTime: '2026-12-06T00:00:00.000Z' });
    await writeMatrixState(dir, s);
    expect((await readMatrixState(dir))?.configs.a?.lastPid).toBe(4242);
    const edited = JSON.parse(await readFile(file, 'utf8'));
    edited.configs.a.lastPid = 1;
    await writeFile(file, JSON.stringify(edited));
    await expect(readMatrixState(dir)).rejects.toThrow(`${file} fails its integrity check`);
    delete edited.integrity;
    await writeFile(file, JSON.stringify(edited));
    await expect(readMatrixState(dir)).rejects.toThrow(`${file} carries no signature`);
    await writeMatrixState(dir, s);
    expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');
    await chmod(file, 0o664);
    await expect(readMatrixState(dir)).rejects.toThrow(`${file} may be written by others (mode 664)`);
  });
});

describe('matrix state files of other versions', () => {
  it('reads a /1 file (no stage records) and hands it on as /2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bg-state-'));
    dirs.push(dir);
    const v1 = {
      ...newMatrixState('m1', null),
      schema: 'benchgate.matrix-state/1',
      configs: { a: prev({}) },
    };
    await writeSigned(join(dir, MATRIX_STATE_FILE), v1);
    const back = await readMatrixState(dir);
    expect(back?.schema).toBe('benchgate.matrix-state/2');
    expect(back?.configs.a.completedLevels).toEqual([0, 1]);
    expect(back?.configs.a.stage).toBeUndefined();
  });

  it('refuses another schema and a config entry without its fields, naming the file and the config', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bg-state-'));
    dirs.push(dir);
    const file = join(dir, MATRIX_STATE_FILE);
    await writeFile(
      file,
      JSON.stringify({ ...newMatrixState('m1', null), schema: 'benchgate.matrix-state/9' }),
    );
    await expect(readMatrixState(dir)).rejects.toThrow(
      /not a benchgate matrix state file this version reads .*found "benchgate.matrix-state\/9"/,
    );
    const broken = { ...newMatrixState('m1', null), configs: { a: { ...prev({}), completedLevels: 'all' } } };
    await writeSigned(file, broken);
    await expect(readMatrixState(dir)).rejects.toThrow(
      `${file}: config "a" has no list of completed level indices (completedLevels); the file cannot be resumed`,
    );
    const badTrial = { ...newMatrixState('m1', null), configs: { a: { ...prev({}), trial: 0 } } };
    await writeSigned(file, badTrial);
    await expect(readMatrixState(dir)).rejects.toThrow(
      `${file}: config "a" has a trial that is not a trial number (1, 2, …)`,
    );
    await writeSigned(file, { ...badTrial, configs: { a: { ...prev({}), trial: 2 } } });
    expect((await readMatrixState(dir))?.configs.a?.trial).toBe(2);
  });

  it('refuses completed level indices that are not safe whole numbers or are listed twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bg-state-'));
    dirs.push(dir);
    const file = join(dir, MATRIX_STATE_FILE);
    for (const completedLevels of [
      [1e308, 0, 1],
      [0, 1, 7, -1],
      [0, 1.5],
    ]) {
      await writeSigned(file, { ...newMatrixState('m1', null), configs: { a: prev({ completedLevels }) } });
      await expect(readMatrixState(dir)).rejects.toThrow(
        `${file}: config "a" has no list of completed level indices (completedLevels)`,
      );
    }
    await writeSigned(file, {
      ...newMatrixState('m1', null),
      configs: { a: prev({ completedLevels: [0, 1, 0] }) },
    });
    await expect(readMatrixState(dir)).rejects.toThrow(
      `${file}: config "a" lists a completed level index more than once (completedLevels)`,
    );
  });

  it('refuses a completed level index beyond the levels of the plan resumed with it', () => {
    const s = { ...newMatrixState('m1', null), configs: { a: prev({ completedLevels: [0, 1, 7] }) } };
    expect(() => levelsOutsidePlan('/m/matrix-state.json', s, 6)).toThrow(
      '/m/matrix-state.json: config "a" records completed level index 7, but the plan stores indices 0 to 5',
    );
    expect(() => levelsOutsidePlan('/m/matrix-state.json', s, 8)).not.toThrow();
  });
});

describe('resume decisions', () => {
  it('keeps completed levels when launch spec and verified config are unchanged', () => {
    expect(decideBeforeLaunch(prev({}), 'L1')).toEqual({ action: 'keep', completedLevels: [0, 1] });
    expect(decideAfterCheckpoint(prev({}), 'H1')).toEqual({ action: 'keep', completedLevels: [0, 1] });
  });

  it('discards completed levels when the launch spec changed', () => {
    expect(decideBeforeLaunch(prev({}), 'L2').action).toBe('discard');
  });

  it('discards completed levels when the server reports a different configuration', () => {
    expect(decideAfterCheckpoint(prev({}), 'H2').action).toBe('discard');
  });

  it('starts fresh when nothing was completed', () => {
    expect(decideBeforeLaunch(undefined, 'L1').action).toBe('fresh');
    expect(decideBeforeLaunch(prev({ completedLevels: [] }), 'L1').action).toBe('fresh');
  });

  it('hashes the verified config independently of the process start time but not of its values', () => {
    expect(verifiedConfigHash(target(1, 'a'))).toBe(verifiedConfigHash(target(1, 'b')));
    expect(verifiedConfigHash(target(1, 'a'))).not.toBe(verifiedConfigHash(target(4, 'a')));
  });
});
