import type { Rgb, View, View2D, View3D, ViewDirection } from '../render/types.js';
import type { Vec3 } from '../../volume/volume.js';
import { frameOf, slabCentre, type NavigationGeometry } from './navigation.js';
import { copy } from './vec.js';
import { PLANE_COLORS, type Cell, type RenderWindow, type Window2D } from './windows.js';

/** What the view builders read from the viewer. */
export interface SceneState {
  navigation(): NavigationGeometry | null;
  crosshairPosition(): Vec3;
  stdWindows(): RenderWindow[];
}

export const BACKGROUND: Rgb = [0, 0, 0];

interface Plane {
  planeNormal: Vec3;
  planePoint: Vec3;
}

/** The plane a 2D window samples: through `through`, moved along its axis to its slab's middle. */
function windowPlane(nav: NavigationGeometry | null, win: Window2D, through: Vec3): Plane {
  const f = frameOf(win.direction);
  const point = copy(through);
  if (nav) point[f.axis] = slabCentre(nav, win.direction, win.step);
  return { planeNormal: copy(f.dop), planePoint: point };
}

const ORTHOGONAL: Array<'axial' | 'sagittal' | 'coronal'> = ['axial', 'sagittal', 'coronal'];
const colorOf = (d: ViewDirection): Rgb => PLANE_COLORS[d === 'original' ? 'axial' : d];

function stdPlanes(scene: SceneState): Array<Plane & { color: Rgb; id: string }> {
  const nav = scene.navigation();
  if (!nav) return [];
  const through = scene.crosshairPosition();
  return scene
    .stdWindows()
    .filter((w): w is Window2D => w.kind === '2d')
    .map((w) => ({ ...windowPlane(nav, w, through), color: colorOf(w.direction), id: w.id }));
}

/** A StdMulti window: 2D windows show the other two planes' crosshair lines, 3D shows all three. */
export function stdMultiView(scene: SceneState, win: RenderWindow): View {
  const nav = scene.navigation();
  const planes = stdPlanes(scene);
  if (win.kind === '3d') {
    const view: View3D = {
      kind: '3d',
      width: win.size.width,
      height: win.size.height,
      camera: win.camera,
      planes: planes.map(({ planeNormal, planePoint, color }) => ({ planeNormal, planePoint, color })),
      bounds: nav ? { min: copy(nav.bounds.min), max: copy(nav.bounds.max) } : null,
      background: BACKGROUND,
    };
    return view;
  }
  return {
    kind: '2d',
    width: win.size.width,
    height: win.size.height,
    viewDirection: win.direction,
    ...windowPlane(nav, win, scene.crosshairPosition()),
    camera: win.camera,
    crosshair: planes
      .filter((p) => p.id !== win.id)
      .map(({ planeNormal, planePoint, color }) => ({ planeNormal, planePoint, color })),
    background: BACKGROUND,
  };
}

/** An MxN cell draws crosshair lines through its own selected position. */
export function cellView(scene: SceneState, cell: Cell): View2D {
  const nav = scene.navigation();
  const axis = frameOf(cell.direction).axis;
  const crosshair = nav
    ? ORTHOGONAL.filter((d) => frameOf(d).axis !== axis).map((d) => ({
        planeNormal: copy(frameOf(d).dop),
        planePoint: copy(cell.position),
        color: PLANE_COLORS[d],
      }))
    : [];
  return {
    kind: '2d',
    width: cell.size.width,
    height: cell.size.height,
    viewDirection: cell.direction,
    ...windowPlane(nav, cell, cell.position),
    camera: cell.camera,
    crosshair,
    background: BACKGROUND,
  };
}
