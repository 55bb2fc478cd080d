// `benchgate calibrate`: measure the client's own capacity on this machine, print the table (or JSON
// with --json) and save it where `bench` reads it before any load. Wiring only.

import type { Command } from 'commander';
import { runCalibration } from '../../session/calibration.js';
import {
  defaultCalibrationPath,
  renderCalibrationTable,
  saveCalibration,
} from '../../session/calibration-file.js';
import { action } from '../action.js';

interface CalibrateFlags {
  quick?: boolean;
  json?: boolean;
  out?: string;
}

export function registerCalibrate(program: Command): void {
  program
    .command('calibrate')
    .description(
      "Measure benchgate's own client against a zero-compute streaming server on this machine and save its capacity.",
    )
    .option('--quick', 'two small levels of under a second each (a first look, tests)')
    .option('--json', 'print the calibration as JSON')
    .option(
      '--out <path>',
      'where to save it (default ~/.cache/benchgate/calibration.json or $BENCHGATE_CALIBRATION)',
    )
    .action(
      action(async (o: CalibrateFlags) => {
        const calibration = await runCalibration({
          quick: o.quick,
          note: (line) => process.stderr.write(`${line}\n`),
        });
        const path = o.out ?? defaultCalibrationPath();
        saveCalibration(path, calibration);
        process.stdout.write(
          o.json ? `${JSON.stringify(calibration, null, 2)}\n` : `${renderCalibrationTable(calibration)}\n`,
        );
        process.stderr.write(`benchgate: calibration saved to ${path}\n`);
      }),
    );
}
