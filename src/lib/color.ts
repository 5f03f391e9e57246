/**
 * Colour conversions between the colour spaces Zigbee and Matter speak (CIE 1931 x/y,
 * hue/saturation) and the API's RGB (color-rgb, 0-255 each). Brightness is a separate
 * capability, so RGB here is always at full value: the colour's hue and saturation, not its
 * intensity.
 */

export interface Rgb {
  red: number;
  green: number;
  blue: number;
}

const gamma = (v: number) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
const linear = (v: number) => (v > 0.04045 ? ((v + 0.055) / 1.055) ** 2.4 : v / 12.92);
const byte = (v: number) => Math.max(0, Math.min(255, Math.round(v * 255)));

/** CIE x/y (wide-gamut D65 matrix) to RGB at full value. */
export function xyToRgb(x: number, y: number): Rgb {
  if (!(y > 0)) return { red: 255, green: 255, blue: 255 };
  const Y = 1;
  const X = (Y / y) * x;
  const Z = (Y / y) * (1 - x - y);
  let r = X * 1.656492 - Y * 0.354851 - Z * 0.255038;
  let g = -X * 0.707196 + Y * 1.655397 + Z * 0.036152;
  let b = X * 0.051713 - Y * 0.121364 + Z * 1.01153;
  r = gamma(Math.max(0, r));
  g = gamma(Math.max(0, g));
  b = gamma(Math.max(0, b));
  const max = Math.max(r, g, b, 1e-9);
  return { red: byte(r / max), green: byte(g / max), blue: byte(b / max) };
}

/** RGB to CIE x/y (the inverse of xyToRgb, up to rounding). */
export function rgbToXy(c: Rgb): { x: number; y: number } {
  const r = linear(c.red / 255);
  const g = linear(c.green / 255);
  const b = linear(c.blue / 255);
  const X = r * 0.664511 + g * 0.154324 + b * 0.162028;
  const Y = r * 0.283881 + g * 0.668433 + b * 0.047685;
  const Z = r * 0.000088 + g * 0.07231 + b * 0.986039;
  const sum = X + Y + Z;
  if (sum <= 0) return { x: 0.3127, y: 0.329 };
  return { x: round4(X / sum), y: round4(Y / sum) };
}

/** Hue (0-360) and saturation (0-100) to RGB at full value. */
export function hsToRgb(hue: number, saturation: number): Rgb {
  const h = (((hue % 360) + 360) % 360) / 60;
  const s = Math.max(0, Math.min(100, saturation)) / 100;
  const c = s;
  const x = c * (1 - Math.abs((h % 2) - 1));
  const m = 1 - c;
  const [r, g, b] =
    h < 1 ? [c, x, 0] : h < 2 ? [x, c, 0] : h < 3 ? [0, c, x] : h < 4 ? [0, x, c] : h < 5 ? [x, 0, c] : [c, 0, x];
  return { red: byte(r + m), green: byte(g + m), blue: byte(b + m) };
}

/** RGB to hue (0-360) and saturation (0-100). */
export function rgbToHs(c: Rgb): { hue: number; saturation: number } {
  const r = c.red / 255;
  const g = c.green / 255;
  const b = c.blue / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const d = max - min;
  let h = 0;
  if (d > 0) {
    if (max === r) h = ((g - b) / d) % 6;
    else if (max === g) h = (b - r) / d + 2;
    else h = (r - g) / d + 4;
  }
  const hue = Math.round((h * 60 + 360) % 360);
  const saturation = max === 0 ? 0 : Math.round((d / max) * 100);
  return { hue, saturation };
}

const round4 = (v: number) => Math.round(v * 10000) / 10000;
