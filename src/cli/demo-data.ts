import { wholeNumber, type RegisterCommand } from './command.js';
import { EXIT, fail } from './errors.js';

/** The single study's DICOM export and the DICOM tree, told in three lines rather than a line a file. */
async function writeDicomExport(dir: string, seed: number): Promise<void> {
  const { writeDemoDicom } = await import('../sim/demo-dicom.js');
  const dicom = await writeDemoDicom(dir, seed);
  console.log(`wrote ${dicom.ct.dir}/ (DICOM CT series, ${dicom.ct.slices} slices)`);
  console.log(`wrote ${dicom.seg} (DICOM SEG of the tumour and the organ)`);
  const { patients, studies, series } = dicom.tree;
  const files = series.reduce((n, s) => n + s.files, 0);
  console.log(
    `wrote ${dicom.tree.dir}/ (DICOM: ${patients} patients, ${studies} studies, ${series.length} series, ${files} files)`,
  );
}

export const registerDemoData: RegisterCommand = (program, setExitCode) => {
  program
    .command('demo-data')
    .description(
      'write synthetic studies (CT with a tumour and its label image, MR, 4D perfusion) as NRRD and NIfTI; a single study also as DICOM, with a small tree of DICOM studies',
    )
    .argument('<dir>', 'output directory, created if missing; only the demo files are written into it')
    .option(
      '--cohort <n>',
      'write N differing studies into study-001/ ... with studies.csv, studies.json and studies.xlsx',
    )
    .option('--seed <s>', 'seed of the generator: the same seed writes the same bytes', '1')
    .action(async (dir: string, opts: { cohort?: string; seed: string }) => {
      const seed = wholeNumber(opts.seed);
      if (seed === undefined || seed > 0xffffffff)
        return setExitCode(
          fail('BAD_OPTION', `--seed must be a whole number from 0 to 4294967295, got '${opts.seed}'`),
        );
      const cohort = opts.cohort === undefined ? undefined : wholeNumber(opts.cohort);
      if (opts.cohort !== undefined && (cohort === undefined || cohort < 1)) {
        return setExitCode(
          fail('BAD_OPTION', `--cohort must be a whole number of studies (1 or more), got '${opts.cohort}'`),
        );
      }
      const { writeDemoData, DemoDataOptionError, MAX_COHORT } = await import('../sim/demo-data.js');
      if (cohort !== undefined && cohort > MAX_COHORT)
        return setExitCode(fail('BAD_OPTION', `--cohort is at most ${MAX_COHORT}, got ${cohort}`));
      try {
        const result = await writeDemoData(
          dir,
          { seed, ...(cohort === undefined ? {} : { cohort }) },
          (study, files) => {
            if (cohort === undefined) {
              for (const file of files) console.log(`wrote ${file}`);
            } else {
              const at = `(${study.tumour_x}, ${study.tumour_y}, ${study.tumour_z})`;
              console.log(
                `${study.name}: tumour at ${at} mm, radius ${study.tumour_radius_mm} mm, ${files.length} files in ${dir}/${study.path}`,
              );
            }
          },
        );
        if (cohort !== undefined)
          console.log(
            `wrote ${result.studies.length} studies, index in ${dir}/studies.csv, ${dir}/studies.json and ${dir}/studies.xlsx`,
          );
        else await writeDicomExport(dir, seed);
        setExitCode(EXIT.ok);
      } catch (err) {
        if (err instanceof DemoDataOptionError)
          return setExitCode(fail('BAD_OUTPUT_DIR', err.message, 'choose a directory'));
        const code = (err as NodeJS.ErrnoException).code;
        const path = (err as NodeJS.ErrnoException).path;
        setExitCode(
          fail(
            'WRITE_FAILED',
            `cannot write ${path ?? dir}${code === undefined ? '' : ` (${code})`}`,
            'check that the directory is writable',
            EXIT.failed,
          ),
        );
      }
    });
};
