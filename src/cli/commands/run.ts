// `benchgate run`: placeholder registration until the command is implemented.

import type { Command } from 'commander';

export function registerRun(_program: Command): void {}
