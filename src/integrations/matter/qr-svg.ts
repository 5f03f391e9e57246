/**
 * The bridge's QR code as an SVG image, for the console: controllers scan it to add the bridge.
 * matter.js encodes the payload and draws the code as terminal text (each character two modules
 * high: a drawn half is a light module, a blank one a dark module); the modules are read back
 * from that text here, so the code shown is the one matter.js made, with no QR encoder of ours.
 */
import { QrCode } from '@matter/main/types';

/** Light modules around the code, as scanners want (the text's own margin is one module). */
const QUIET = 4;

/** The modules of matter.js's drawing of a payload: rows of `true` for dark. */
export function qrModules(text: string): boolean[][] {
  const rows: boolean[][] = [];
  for (const line of text.split('\n').filter((l) => l.length > 0)) {
    const top: boolean[] = [];
    const bottom: boolean[] = [];
    for (const ch of line) {
      top.push(!(ch === '\u2588' || ch === '\u2580'));
      bottom.push(!(ch === '\u2588' || ch === '\u2584'));
    }
    rows.push(top, bottom);
  }
  // The first line's upper half and the last line's lower half are outside the drawing.
  const inside = rows.slice(1, -1);
  // Keep the dark modules' bounding box: the code itself, whatever margin the drawing had.
  const dark = (r: boolean[]) => r.some(Boolean);
  const first = inside.findIndex(dark);
  const last = inside.length - 1 - [...inside].reverse().findIndex(dark);
  const cols = inside.flatMap((r) => r.flatMap((d, x) => (d ? [x] : [])));
  const left = Math.min(...cols);
  const right = Math.max(...cols);
  return inside.slice(first, last + 1).map((r) => r.slice(left, right + 1));
}

/** An SVG of the QR code of `payload` (e.g. `MT:Y.K9042C00KA0648G00`), black on white. */
export function qrSvg(payload: string): string {
  const modules = qrModules(QrCode.get(payload));
  const size = modules.length + 2 * QUIET;
  let path = '';
  modules.forEach((row, y) => {
    row.forEach((d, x) => {
      if (d) path += `M${x + QUIET} ${y + QUIET}h1v1h-1z`;
    });
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`
  );
}
