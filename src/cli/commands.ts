import type { Command } from 'commander';
import { registerDemoData } from './demo-data.js';
import { registerMergeReports } from './merge-reports.js';
import { registerPlan } from './plan.js';
import { registerRun } from './run.js';
import { registerSchema } from './schema.js';
import { registerServe } from './serve.js';
import { registerValidate } from './validate.js';

/**
 * A command module adds its subcommand to the program and reports its exit code through
 * `setExitCode`; adding a command is one module and one line here.
 */
export type RegisterCommand = (program: Command, setExitCode: (code: number) => void) => void;

export const commands: RegisterCommand[] = [
  registerDemoData,
  registerValidate,
  registerPlan,
  registerRun,
  registerMergeReports,
  registerSchema,
  registerServe,
];
