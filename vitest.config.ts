import { defineConfig } from 'vitest/config';

// Tests sit beside the code (src/**/foo.test.ts). Servers start on port 0, so files run in parallel safely.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
