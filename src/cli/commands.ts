import { registerAccept } from './accept.js';
import type { RegisterCommand } from './command.js';
import { registerDemoData } from './demo-data.js';
import { registerInit } from './init.js';
import { registerMergeReports } from './merge-reports.js';
import { registerPlan } from './plan.js';
import { registerRecord } from './record.js';
import { registerRun } from './run.js';
import { registerSchema } from './schema.js';
import { registerServe } from './serve.js';
import { registerShowReport } from './show-report.js';
import { registerUi } from './ui.js';
import { registerValidate } from './validate.js';

/** Every subcommand, in the order `wbplay --help` lists them. */
export const commands: readonly RegisterCommand[] = [
  registerInit,
  registerDemoData,
  registerValidate,
  registerPlan,
  registerRun,
  registerMergeReports,
  registerShowReport,
  registerUi,
  registerRecord,
  registerAccept,
  registerSchema,
  registerServe,
];
