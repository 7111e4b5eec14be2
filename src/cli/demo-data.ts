import type { RegisterCommand } from './commands.js';

const EXIT_USAGE = 2;
const EXIT_FAILURE = 1;

/** A whole non-negative number as typed on the command line, or undefined. */
function wholeNumber(text: string): number | undefined {
  return /^\d{1,10}$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

export const registerDemoData: RegisterCommand = (program, setExitCode) => {
  program
    .command('demo-data')
    .description('write synthetic studies (CT with a tumour and its label image, MR, 4D perfusion) as NRRD and NIfTI')
    .argument('<dir>', 'output directory, created if missing; only the demo files are written into it')
    .option('--cohort <n>', 'write N differing studies into study-001/ ... with studies.csv and studies.json')
    .option('--seed <s>', 'seed of the generator: the same seed writes the same bytes', '1')
    .action(async (dir: string, opts: { cohort?: string; seed: string }) => {
      const usage = (message: string): void => {
        console.error(`wbplay demo-data: ${message}`);
        setExitCode(EXIT_USAGE);
      };
      const seed = wholeNumber(opts.seed);
      if (seed === undefined || seed > 0xffffffff) return usage(`--seed must be a whole number from 0 to 4294967295, got '${opts.seed}'`);
      const cohort = opts.cohort === undefined ? undefined : wholeNumber(opts.cohort);
      if (opts.cohort !== undefined && (cohort === undefined || cohort < 1)) {
        return usage(`--cohort must be a whole number of studies (1 or more), got '${opts.cohort}'`);
      }
      const { writeDemoData, DemoDataOptionError, MAX_COHORT } = await import('../sim/demo-data.js');
      if (cohort !== undefined && cohort > MAX_COHORT) return usage(`--cohort is at most ${MAX_COHORT}, got ${cohort}`);
      try {
        const result = await writeDemoData(dir, { seed, ...(cohort === undefined ? {} : { cohort }) }, (study, files) => {
          if (cohort === undefined) {
            for (const file of files) console.log(`wrote ${file}`);
          } else {
            const at = `(${study.tumour_x}, ${study.tumour_y}, ${study.tumour_z})`;
            console.log(`${study.name}: tumour at ${at} mm, radius ${study.tumour_radius_mm} mm, ${files.length} files in ${dir}/${study.path}`);
          }
        });
        if (cohort !== undefined) console.log(`wrote ${result.studies.length} studies, index in ${dir}/studies.csv and ${dir}/studies.json`);
        setExitCode(0);
      } catch (err) {
        if (err instanceof DemoDataOptionError) return usage(`${err.message}; choose a directory`);
        const code = (err as NodeJS.ErrnoException).code;
        const path = (err as NodeJS.ErrnoException).path;
        console.error(`wbplay demo-data: cannot write ${path ?? dir}${code === undefined ? '' : ` (${code})`}; check that the directory is writable`);
        setExitCode(EXIT_FAILURE);
      }
    });
};
