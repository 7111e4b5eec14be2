import type { SimRequest, SimResponse } from './http-types.js';

export type RouteParams = Record<string, string>;
export type RouteHandler = (req: SimRequest, params: RouteParams) => SimResponse | Promise<SimResponse>;

interface Route {
  method: string;
  segments: string[];
  handler: RouteHandler;
}

/**
 * Literal routes with `:name` segments, matched in registration order. The real server
 * registers each path literally, so anything that matches no route gets a bare 404.
 */
export class Router {
  private readonly routes: Route[] = [];

  on(method: string, pattern: string, handler: RouteHandler): this {
    this.routes.push({ method: method.toUpperCase(), segments: pattern.split('/').filter(Boolean), handler });
    return this;
  }

  match(method: string, path: string): { handler: RouteHandler; params: RouteParams } | undefined {
    const parts = path.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method.toUpperCase() || route.segments.length !== parts.length) continue;
      const params: RouteParams = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const seg = route.segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith(':')) {
          try {
            params[seg.slice(1)] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        } else if (seg !== part) {
          ok = false;
        }
      }
      if (ok) return { handler: route.handler, params };
    }
    return undefined;
  }
}
