import { cohortFigure } from './cohort-figure.js';
import { contactSheet } from './contact-sheet.js';
import type { PostRunStage } from './post-run-stage.js';

/** The playbook keys of the post-run stages, in the order they run (and the schema lists them). */
export const POST_RUN_KEYS = ['contact_sheet', 'cohort_figure'] as const;

export type PostRunKey = (typeof POST_RUN_KEYS)[number];

/** Every post-run stage by its key; a key left out here is a type error. */
export const postRunRegistry = {
  contact_sheet: contactSheet,
  cohort_figure: cohortFigure,
} satisfies { [K in PostRunKey]: PostRunStage<K, unknown> };

/** The compiled arguments of a post-run stage. */
export type PostRunArgs<K extends PostRunKey> = NonNullable<ReturnType<(typeof postRunRegistry)[K]['compile']>>;

/** The plan's fields the post-run stages fill, one per stage the playbook asks for. */
export type PostRunPlans = { [K in PostRunKey]?: PostRunArgs<K> };

/** The stages as the compiler, the runner and merge-reports go through them, in order. */
export const postRunStages: ReadonlyArray<PostRunStage<PostRunKey, unknown>> = POST_RUN_KEYS.map(
  (key) => postRunRegistry[key],
);
