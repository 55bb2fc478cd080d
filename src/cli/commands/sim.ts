// `benchgate sim`: placeholder registration until the command is implemented.

import type { Command } from 'commander';

export function registerSim(_program: Command): void {}
