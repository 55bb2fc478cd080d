// The example plans shipped in examples/ are documentation: they must stay valid as the schema grows.

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlanFile } from './load.js';

const dir = join(import.meta.dirname, '..', '..', 'examples');
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

describe('example plans', () => {
  it('ships at least the bench, check and matrix examples', () => {
    expect(files).toEqual(expect.arrayContaining(['bench-plan.yaml', 'story-check.yaml', 'sim-matrix.yaml']));
  });
  it.each(files)('%s loads without errors', async (f) => {
    await expect(loadPlanFile(join(dir, f))).resolves.toBeTruthy();
  });
});
