/** The colour the loader and the chat window fall back to: the protocol's default, and the CSS's initial `--c`. */
export const DEFAULT_COLOUR = '#1677ff';

/**
 * A colour from the settings goes into CSS on the host page and in the chat window: only a hex colour
 * passes, anything else (a value that could close the declaration and add its own) gives way to the default.
 */
export function safeColor(value: string): string {
  return /^#[0-9a-f]{3}(?:[0-9a-f]{3})?$/i.test(value) ? value : DEFAULT_COLOUR;
}
