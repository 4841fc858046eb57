/**
 * Text on a coloured fill (a risk level's colour from the planning tool, a band's fill) in the colour
 * that reads on it: WCAG 2's contrast ratio, the larger of black and white. Either of them reaches
 * at least 4.58:1 on any fill (AA asks 4.5:1 for body text), where a fixed threshold on a
 * brightness formula put white on amber and green (2.7:1). One rule for the workbook, the PDF and the
 * e-mail, so a cell reads the same everywhere.
 */

export const TEXT_ON_FILL = { dark: '#000000', light: '#FFFFFF' } as const;

/** `rrggbb` of a colour written `#rrggbb`, `rrggbb`, `#rgb` or ARGB `aarrggbb` (as exceljs and some registers write it). */
function rgbHex(colour: string): string | undefined {
  const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(colour.trim())?.[1];
  if (hex === undefined) return undefined;
  if (hex.length === 3) return [...hex].map((c) => c + c).join('');
  return hex.length === 8 ? hex.slice(2) : hex;
}

/** WCAG 2 relative luminance of a colour (0 black … 1 white); undefined for anything but a hex colour. */
export function relativeLuminance(colour: string): number | undefined {
  const hex = rgbHex(colour);
  if (hex === undefined) return undefined;
  const n = parseInt(hex, 16);
  const channel = (shift: number) => {
    const c = ((n >> shift) & 255) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(16) + 0.7152 * channel(8) + 0.0722 * channel(0);
}

/** WCAG 2 contrast ratio of two hex colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [l1, l2] = [relativeLuminance(a) ?? 0, relativeLuminance(b) ?? 0].sort((x, y) => y - x);
  return (l1! + 0.05) / (l2! + 0.05);
}

/** Black or white, whichever contrasts more with the fill (black for a colour that is no hex colour). */
export function textColourOn(fill: string): string {
  return contrastRatio(TEXT_ON_FILL.light, fill) > contrastRatio(TEXT_ON_FILL.dark, fill) ? TEXT_ON_FILL.light : TEXT_ON_FILL.dark;
}
