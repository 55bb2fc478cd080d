// `benchgate bench`: placeholder registration until the command is implemented.

import type { Command } from 'commander';

export function registerBench(_program: Command): void {}
