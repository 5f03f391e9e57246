/**
 * Names as a person reads them, made on the server (layouts) and in the page alike. No imports: the
 * console's bundle takes this file as it is.
 */

/** `fanLevel` -> `Fan level`, `home_mode` -> `Home mode`, `manual-mode` -> `Manual mode`. */
export function humanize(word: string): string {
  const spaced = word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_]+/g, ' ')
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
