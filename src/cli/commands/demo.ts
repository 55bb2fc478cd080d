// `benchgate demo`: placeholder registration until the command is implemented.

import type { Command } from 'commander';

export function registerDemo(_program: Command): void {}
