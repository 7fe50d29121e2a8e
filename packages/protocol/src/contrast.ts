/** WCAG relative luminance of an sRGB channel triple (0–255 each). */
function luminance(rgb: number[]): number {
  const [r = 0, g = 0, b = 0] = rgb.map((value) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The theme colour, darkened just enough for white text on it to read at 4.5:1 (WCAG AA): the admin
 * picks any colour, and a light one would leave a button's white label unreadable. Not `#rrggbb`: as given.
 * The chat window paints with it, and the console's previews of the chat window the same.
 */
export function inkOn(color: string): string {
  const match = /^#([0-9a-f]{6})$/i.exec(color);
  if (!match?.[1]) return color;
  const hex = match[1];
  let rgb = [0, 2, 4].map((at) => Number.parseInt(hex.slice(at, at + 2), 16));
  while (1.05 / (luminance(rgb) + 0.05) < 4.5) rgb = rgb.map((value) => Math.floor(value * 0.92));
  return `#${rgb.map((value) => value.toString(16).padStart(2, '0')).join('')}`;
}
