// `benchgate schema`: prints the plan's JSON Schema (for editor completion) on stdout.

import type { Command } from 'commander';
import { planJsonSchema } from '../../plan/schema.js';
import { action } from '../action.js';

export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('Print the JSON Schema of plan files (for editor completion).')
    .action(
      action(async () => {
        process.stdout.write(`${JSON.stringify(planJsonSchema(), null, 2)}\n`);
      }),
    );
}
