import type {
  CallOptions,
  MxnCell,
  Screenshot,
  ScreenshotOptions,
  StdMultiWindow,
  StdMultiWindowId,
  WorkbenchClient,
} from '../client/index.js';
import type { WindowAddress } from './window-address.js';

type WindowTargetAddress = Extract<WindowAddress, { target: 'window' }>;

/** The client handle of one render window. MxN handles are taken fresh, so a layout step never leaves one stale. */
export function windowHandle(client: WorkbenchClient, address: WindowTargetAddress): StdMultiWindow | MxnCell {
  return address.editor === 'stdmulti'
    ? client.stdmulti.window(address.window as StdMultiWindowId)
    : client.mxn.window(address.window);
}

/** A capture of the application, an editor canvas or one window. */
export function capture(
  client: WorkbenchClient,
  of: WindowAddress,
  options: ScreenshotOptions & CallOptions,
): Promise<Screenshot> {
  if (of.target === 'app') return client.rendering.screenshot(options);
  if (of.target === 'editor') return client.editors.get(of.editor).screenshot(options);
  return windowHandle(client, of).screenshot(options);
}
