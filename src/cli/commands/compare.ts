// `benchgate compare`: placeholder registration until the command is implemented.

import type { Command } from 'commander';

export function registerCompare(_program: Command): void {}
