import type { StdMultiWindowId, WorkbenchClient } from '../client/index.js';

/** One window as a step left it. */
export interface WindowCapture {
  /** `stdmulti/axial`, `mxn/mxn__left`: as a playbook names the window. */
  window: string;
  bytes: Uint8Array;
}

/**
 * A capture of every window of the open editors, in the server's window order: the standard
 * editor's four windows, and the cells of the MxN layout when it is open. A window that cannot
 * be captured (a cell the layout just replaced) is left out rather than failing the rest.
 */
export async function captureWindows(client: WorkbenchClient, signal: AbortSignal): Promise<WindowCapture[]> {
  const open = (await client.editors.list({ signal })).filter((e) => e.active).map((e) => e.alias);
  const captures: WindowCapture[] = [];
  for (const alias of ['stdmulti', 'mxn'] as const) {
    if (!open.includes(alias)) continue;
    const editor = client.editors.get(alias);
    for (const entry of await editor.windows({ signal })) {
      const handle =
        alias === 'stdmulti'
          ? client.editors.stdmulti.window(entry.id as StdMultiWindowId)
          : client.editors.mxn.window(entry.id);
      const shot = await handle.screenshot({ format: 'png', signal }).catch(() => undefined);
      if (shot) captures.push({ window: `${alias}/${entry.id}`, bytes: shot.bytes });
    }
  }
  return captures;
}
