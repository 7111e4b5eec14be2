import type { Artefact, RunResult, StepResult } from '../result/result.js';
import type { ReportNames } from './names.js';
import { COHORT_FIGURE_STEP } from '../steps/post-run/cohort-figure-plan.js';

/** How many paths a summary line names before it only counts the rest. */
const SHOWN = 4;

/**
 * What a run wrote besides its reports, gathered as its steps end: goldens written or updated,
 * figures, screenshots, and the run's contact sheets and cohort figures. A run that passed while writing goldens
 * compared nothing for those checks, so the summary says so rather than a bare verdict.
 */
export class WrittenFiles {
  private readonly goldens = new Tally();
  private readonly figures = new Tally();
  private readonly screenshots = new Tally();

  constructor(private readonly names?: ReportNames) {}

  record(step: Pick<StepResult, 'artefacts'>): void {
    for (const a of step.artefacts) {
      if (a.kind === 'golden') this.goldens.add(this.name(a));
      else if (a.kind === 'figure') this.figures.add(this.name(a));
      else if (a.kind === 'screenshot') this.screenshots.add(this.name(a));
    }
  }

  /** One line per kind of file written, each with its count and paths; none when nothing was. */
  lines(result: Pick<RunResult, 'figures'>): string[] {
    const sheets = new Tally();
    const cohortFigures = new Tally();
    for (const a of result.figures ?? [])
      (a.provenance?.step === COHORT_FIGURE_STEP ? cohortFigures : sheets).add(this.name(a));
    return [
      this.goldens.line('golden', 'goldens', ' (compared with nothing this run: check them, then commit them)'),
      this.figures.line('figure file', 'figure files'),
      sheets.line('contact sheet', 'contact sheets'),
      cohortFigures.line('cohort figure file', 'cohort figure files'),
      this.screenshots.line('screenshot', 'screenshots'),
    ].filter((l): l is string => l !== undefined);
  }

  private name(a: Artefact): string {
    return this.names ? this.names.artefactName(a) : a.path;
  }
}

/** A count of files and the first few paths: a cohort of thousands keeps only what is shown. */
class Tally {
  private count = 0;
  private readonly first: string[] = [];

  add(path: string): void {
    this.count++;
    if (this.first.length < SHOWN) this.first.push(path);
  }

  line(one: string, many: string, note = ''): string | undefined {
    if (this.count === 0) return undefined;
    const more = this.count > SHOWN ? ` and ${this.count - SHOWN} more` : '';
    return `Wrote ${this.count} ${this.count === 1 ? one : many}${note}: ${this.first.join(', ')}${more}`;
  }
}
