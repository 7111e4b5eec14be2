import type { WorkbenchClient } from '../client/index.js';
import type { RgbaImage } from '../image/rgba.js';
import type { WindowAddress } from './window-address.js';

/*
 * A capture of one colour is a file that passes every step and shows nothing. The usual cause
 * is a window no `reinit` has fitted to the data: MITK draws a render window's data only once
 * its slice navigators have a geometry, and loading data does not give them one.
 */

/** The one colour every pixel of the image has, as `#rrggbb`; undefined when there are two or more. */
export function singleColour(image: RgbaImage): string | undefined {
  const d = image.data;
  if (d.length < 4) return undefined;
  const [r, g, b, a] = [d[0]!, d[1]!, d[2]!, d[3]!];
  for (let i = 4; i < d.length; i += 4)
    if (d[i] !== r || d[i + 1] !== g || d[i + 2] !== b || d[i + 3] !== a) return undefined;
  return `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * What a step says about a capture of one colour: the likely cause and its fix. The workbench
 * is asked whether any geometry is set up (the selected position has bounds only after a
 * reinit over data); without one the cause is certain.
 */
export async function blankCaptureNotice(
  client: WorkbenchClient,
  of: WindowAddress,
  colour: string,
  call: { signal: AbortSignal },
): Promise<string> {
  const fitted = await hasGeometry(client, of, call);
  const what = `the capture of ${of.address} is a single colour (${colour}): it shows no data`;
  if (fitted === undefined)
    return `${what}. Add \`- reinit\` after the \`load\` steps, and check that the data is visible where the window looks.`;
  if (!fitted)
    return (
      `${what}. No \`reinit\` has fitted the windows to the data, so MITK draws nothing in them: ` +
      'add `- reinit` after the `load` steps, before the capture.'
    );
  return (
    `${what}. The windows are fitted to data, so the data is hidden, transparent, or not where the ` +
    'window looks: check `visible` and `opacity`, move the crosshair (`position`) into the data, or ' +
    '`reinit` again after the last `load`.'
  );
}

async function hasGeometry(
  client: WorkbenchClient,
  of: WindowAddress,
  call: { signal: AbortSignal },
): Promise<boolean | undefined> {
  try {
    const state =
      of.target === 'window' && of.editor === 'mxn'
        ? await client.mxn.window(of.window).selectedPosition(call)
        : await client.rendering.selectedPosition(call);
    return state.bounds.min_position !== null && state.bounds.max_position !== null;
  } catch {
    // An editor that is not open has no geometry to ask about; the capture is still blank.
    return undefined;
  }
}
