import type { DataStoreView, PropertyList, PropertyValue, SimNode } from '../../../src/sim/datastore-types.js';
import { bareNotFound, type SimResponse } from '../../../src/sim/http-types.js';
import { applyImageDefaults } from '../../../src/sim/image-defaults.js';
import { newLevelWindow } from '../../../src/sim/level-window-state.js';
import { Problem, problemResponse } from '../../../src/sim/problem.js';
import { Router } from '../../../src/sim/router.js';
import { registerRenderingRoutes } from '../../../src/sim/routes/rendering.js';
import { Viewer, type ViewerOptions } from '../../../src/sim/viewer/viewer.js';
import { IDENTITY, type Mat3, type Vec3, type Volume } from '../../../src/volume/volume.js';

/** A data storage with just what the viewer reads; tests add nodes and properties directly. */
export class FakeStore implements DataStoreView {
  private readonly list: SimNode[] = [];
  private readonly removeListeners: Array<(uid: string) => void> = [];

  /** A node as the data storage makes it: the given properties, then the image mapper's defaults. */
  add(uid: string, volume: Volume | null, props: Record<string, PropertyValue> = {}): SimNode {
    const properties = new Map(Object.entries({ name: { type: 'StringProperty', value: uid }, ...props }));
    if (volume) applyImageDefaults(properties, volume);
    const node: SimNode = {
      uid,
      parentUid: null,
      volume,
      properties,
      contextProperties: new Map(),
      dataProperties: new Map(),
      timestamp: 1,
    };
    this.list.push(node);
    return node;
  }

  set(uid: string, key: string, value: PropertyValue, context?: string): void {
    const node = this.get(uid)!;
    let list: PropertyList = node.properties;
    if (context !== undefined) {
      list = node.contextProperties.get(context) ?? new Map();
      node.contextProperties.set(context, list);
    }
    list.set(key, value);
    node.timestamp++;
  }

  remove(uid: string): void {
    const i = this.list.findIndex((n) => n.uid === uid);
    if (i >= 0) this.list.splice(i, 1);
    this.removeListeners.forEach((l) => l(uid));
  }

  nodes(): readonly SimNode[] {
    return this.list;
  }

  get(uid: string): SimNode | undefined {
    return this.list.find((n) => n.uid === uid);
  }

  property(node: SimNode, key: string, context?: string): PropertyValue | undefined {
    return (
      (context !== undefined ? node.contextProperties.get(context)?.get(key) : undefined) ?? node.properties.get(key)
    );
  }

  onRemove(listener: (uid: string) => void): void {
    this.removeListeners.push(listener);
  }
}

export interface VolumeSpec {
  dims?: Vec3;
  spacing?: Vec3;
  origin?: Vec3;
  direction?: Mat3;
  timeSteps?: number;
  timeStepMs?: number;
  /** Voxel value from the index (and time step); default 0. */
  value?: (i: number, j: number, k: number, t: number) => number;
}

export function makeVolume(spec: VolumeSpec = {}): Volume {
  const dims = spec.dims ?? [8, 8, 4];
  const frames: Float32Array[] = [];
  let lo = Infinity;
  let hi = -Infinity;
  for (let t = 0; t < (spec.timeSteps ?? 1); t++) {
    const f = new Float32Array(dims[0] * dims[1] * dims[2]);
    let n = 0;
    for (let k = 0; k < dims[2]; k++) {
      for (let j = 0; j < dims[1]; j++) {
        for (let i = 0; i < dims[0]; i++) {
          const v = spec.value ? spec.value(i, j, k, t) : 0;
          f[n++] = v;
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    frames.push(f);
  }
  return {
    dims,
    spacing: spec.spacing ?? [1, 1, 1],
    origin: spec.origin ?? [0, 0, 0],
    direction: spec.direction ?? IDENTITY,
    frames,
    timeStepMs: spec.timeStepMs ?? 1,
    timeOriginMs: 0,
    componentType: 'float32',
    range: [lo, hi],
  };
}

/** The NB06 phantom geometry: 96x96x32 voxels of 1x1x2.5 mm at the origin. */
export const NB06 = { dims: [96, 96, 32] as Vec3, spacing: [1, 1, 2.5] as Vec3 };

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  // Tests read whatever JSON came back.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/**
 * The viewer and its routes behind a router, answering like the workbench's handler does:
 * a thrown `Problem` becomes the wrapped error body, an unmatched route a bare 404.
 */
export function setup(options: ViewerOptions = {}): {
  store: FakeStore;
  viewer: Viewer;
  call(method: string, path: string, body?: unknown, query?: string): Promise<Answer>;
} {
  const store = new FakeStore();
  const viewer = new Viewer(store, options);
  const router = new Router();
  registerRenderingRoutes(router, { store, viewer });
  const call = async (method: string, path: string, body?: unknown, query = ''): Promise<Answer> => {
    const fullPath = `/api/v1${path}`;
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const req = {
      method,
      path: fullPath,
      query: new URLSearchParams(query),
      headers: {},
      body: new TextEncoder().encode(text),
      clientIp: '127.0.0.1',
    };
    const match = router.match(method, fullPath);
    let res: SimResponse;
    if (!match) res = bareNotFound();
    else {
      try {
        res = await match.handler(req, match.params);
      } catch (e) {
        if (!(e instanceof Problem)) throw e;
        res = problemResponse(e, fullPath);
      }
    }
    const bytes = res.body === undefined ? Buffer.alloc(0) : Buffer.from(res.body);
    const isJson = res.headers['content-type'] === 'application/json';
    return {
      status: res.status,
      headers: res.headers,
      body: bytes,
      json: isJson ? JSON.parse(bytes.toString('utf8')) : undefined,
    };
  };
  return { store, viewer, call };
}

/** Asserts a wrapped error answer and returns its `error` object. */
export function errorOf(a: Answer, status: number, code: string): { message: string; status: number; code: string } {
  if (a.status !== status || a.json?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${a.status} ${a.body.toString('utf8')}`);
  }
  return a.json.error;
}

/** A `levelwindow` property whose window runs exactly from level - window / 2 to level + window / 2. */
export function levelWindowProperty(level: number, window: number): PropertyValue {
  return { type: 'LevelWindowProperty', value: newLevelWindow(level, window) };
}
