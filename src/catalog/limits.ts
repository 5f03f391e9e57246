/**
 * What one device may carry, so that every event about a device, and every device kept in
 * memory, is bounded whatever a token holder sends (docs/security.md, "Limits"). Sizes are
 * characters of the value's JSON, as it is stored and as it goes out on the event stream.
 */
export const deviceLimits = Object.freeze({
  /** A device's tags (spec 2.7): providers keep routing data there, base64 included (COMPAT.md). */
  tagsChars: 64 * 1024,
  /** One state report, control command or query result. */
  stateChars: 64 * 1024,
  /** A device's capability list. */
  capabilitiesChars: 256 * 1024,
  /** Entries of a device's capability list. */
  capabilities: 256,
  /** A name given by a client (D4). */
  nameChars: 256,
  /** A string of a third-party endpoint (T1): name, manufacturer, model, serial numbers. */
  endpointStringChars: 1024,
});

/** Characters of a value's JSON (0 for a value JSON cannot hold). */
export function jsonChars(value: unknown): number {
  return JSON.stringify(value)?.length ?? 0;
}

/** An error (`path: N characters of JSON, more than the M allowed`) when `value` is too large, else undefined. */
export function tooLarge(value: unknown, maxChars: number, path: string): string | undefined {
  const n = jsonChars(value);
  return n > maxChars ? `${path}: ${n} characters of JSON, more than the ${maxChars} allowed` : undefined;
}

/** An error when a capability list has too many entries or is too large, else undefined. */
export function capabilitiesTooLarge(caps: unknown, path: string): string | undefined {
  if (Array.isArray(caps) && caps.length > deviceLimits.capabilities)
    return `${path}: ${caps.length} capabilities, more than the ${deviceLimits.capabilities} allowed`;
  return tooLarge(caps, deviceLimits.capabilitiesChars, path);
}
