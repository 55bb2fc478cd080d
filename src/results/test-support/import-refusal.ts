// The message of the coded error an import refuses a text with, for tests that judge refusals.

import { expect } from 'vitest';
import { BenchgateError } from '../../core/errors.js';
import { importResultText } from '../import-result.js';

/** The message of the error importing `text` throws, failing the test when it imports or throws another kind. */
export function importRefusal(text: string, file = 'r.json'): string {
  try {
    importResultText(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(BenchgateError);
    expect((e as BenchgateError).code).toBe('BG_E_IMPORT');
    return (e as Error).message;
  }
  throw new Error('imported without complaint');
}
