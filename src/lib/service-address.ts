/** The service address of a third party (a device's, a TTS engine's): an http(s) URL. */
import { fmt } from './format.ts';

export type AddressCheck = { ok: true; url: string } | { ok: false; message: string };

/** Checks a service address; the message names `path` (`payload.endpoints.0.service_address: ...`). */
export function checkServiceAddress(v: unknown, path: string): AddressCheck {
  if (typeof v !== 'string' || v.trim() === '')
    return { ok: false, message: `${path}: ${v === undefined ? 'required' : `${fmt(v)} is not a service address`}` };
  try {
    const url = new URL(v.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    return { ok: true, url: v.trim() };
  } catch {
    return { ok: false, message: `${path}: ${fmt(v)} is not an http(s) URL` };
  }
}
