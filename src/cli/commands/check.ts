// `benchgate check`: placeholder registration until the command is implemented.

import type { Command } from 'commander';

export function registerCheck(_program: Command): void {}
