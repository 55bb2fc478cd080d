import { describe, expect, it } from 'vitest';
import { timeTicks } from './point-chart.js';

describe('time ticks of the history chart', () => {
  it('carry the year when the span crosses one, the time of day within one day', () => {
    const across = timeTicks(Date.parse('2025-11-20T00:00:00Z'), Date.parse('2026-12-05T00:00:00Z'));
    expect(across.at.map(across.label).every((l) => /^20\d\d-\d\d-\d\d$/.test(l))).toBe(true);
    const day = timeTicks(Date.parse('2026-12-05T08:00:00Z'), Date.parse('2026-12-05T12:00:00Z'));
    expect(day.label(day.at[0])).toMatch(/^\d\d:\d\dZ$/);
  });
});
