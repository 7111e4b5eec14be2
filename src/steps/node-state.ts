import { propertyValue } from './property-value.js';
import type { StepRunContext } from './run-context.js';
import type { WindowAddress } from './window-address.js';
import { windowHandle } from './window-handle.js';

/**
 * A node's state as the check names it: its fields, its simple display properties, and what
 * `wanted` asks for beyond them (level window, colour map, interpolation, any property), read
 * in the window's context when one is given.
 */
export async function nodeState(
  uid: string,
  of: { window?: Extract<WindowAddress, { target: 'window' }> },
  wanted: Record<string, unknown>,
  ctx: StepRunContext,
): Promise<Record<string, unknown>> {
  const context = of.window ? windowHandle(ctx.client, of.window).context : undefined;
  const call = { signal: ctx.signal, ...(context !== undefined ? { context } : {}) };
  const extra = Object.keys((wanted.properties as Record<string, unknown> | undefined) ?? {});
  const names = ['visible', 'opacity', 'color', 'texture interpolation', 'reslice interpolation', ...extra];
  // A window's own values over the node's: MITK answers a read in a context with that
  // context's own values only.
  const [node, own, windows] = await Promise.all([
    ctx.client.nodes.get(uid, { signal: ctx.signal }),
    ctx.client.properties.list(uid, { names, signal: ctx.signal }),
    context !== undefined ? ctx.client.properties.list(uid, { names, ...call }) : {},
  ]);
  const props: Record<string, unknown> = { ...own, ...windows };
  const actual: Record<string, unknown> = {
    name: node.name,
    parent: node.parent_uid,
    data_type: node.data_type,
    visible: propertyValue(props.visible),
    opacity: propertyValue(props.opacity),
    color: propertyValue(props.color),
  };
  if ('level_window' in wanted) actual.level_window = await ctx.client.display.levelWindow(uid, call);
  if ('colormap' in wanted) actual.colormap = (await ctx.client.display.colormap(uid, call)).name;
  if ('interpolation' in wanted) {
    const reslice = propertyValue(props['reslice interpolation']);
    actual.interpolation = {
      texture: propertyValue(props['texture interpolation']),
      reslice: typeof reslice === 'string' ? reslice.toLowerCase() : reslice,
    };
  }
  if (extra.length > 0) actual.properties = Object.fromEntries(extra.map((k) => [k, propertyValue(props[k])]));
  return actual;
}
