/** Text that is not Unicode: strings holding an unpaired surrogate (only a `\uXXXX` escape in JSON can make one). */

/** An unpaired high or low surrogate. */
export const UNPAIRED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `s` with each unpaired surrogate replaced by U+FFFD, as the store (UTF-8) would keep it. */
export function wellFormed(s: string): string {
  return s.replace(new RegExp(UNPAIRED.source, 'g'), '\uFFFD');
}
