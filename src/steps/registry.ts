import { camera } from './camera.js';
import { expectImage } from './expect-image.js';
import { expectState } from './expect-state.js';
import { figure } from './figure.js';
import { hideAll } from './hide-all.js';
import { include } from './include.js';
import { layout } from './layout.js';
import { load } from './load.js';
import { position } from './position.js';
import { reinit } from './reinit.js';
import { remove } from './remove.js';
import { screenshot } from './screenshot.js';
import { set } from './set.js';
import { slice } from './slice.js';
import { store } from './store.js';
import type { StepDefinition, StepKind } from './step-definition.js';
import { time } from './time.js';
import { update } from './update.js';
import { wait } from './wait.js';
import { windowNode } from './window-node.js';

/** Every step kind's definition; a kind left out here is a type error. */
export const registry = {
  load,
  set,
  hide_all: hideAll,
  remove,
  reinit,
  update,
  position,
  time,
  slice,
  camera,
  layout,
  window_node: windowNode,
  screenshot,
  figure,
  store,
  expect_image: expectImage,
  expect_state: expectState,
  wait,
  include,
} satisfies { [K in StepKind]: StepDefinition<K, unknown> };

export type Registry = typeof registry;

/** The compiled arguments of a step kind. */
export type StepArgs<K extends StepKind> = ReturnType<Registry[K]['compile']>;

export function isStepKind(word: string): word is StepKind {
  return Object.prototype.hasOwnProperty.call(registry, word);
}
