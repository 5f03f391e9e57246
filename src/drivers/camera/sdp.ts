/**
 * What a camera's SDP (RFC 8866, the DESCRIBE answer) tells about its stream: the media sections
 * with their codec (rtpmap, or the static payload types of RFC 3551), clock rate, format
 * parameters (fmtp), bandwidth (b=AS) and frame size where the camera states it. Lenient: lines
 * it does not know are skipped, as cameras add their own.
 */

export interface SdpMedia {
  /** `video`, `audio`, `application`... */
  type: string;
  /** The first payload type of the `m=` line: the one the camera streams. */
  payloadType: number;
  /** Encoding name as written in rtpmap (`H264`, `H265`, `PCMA`, `MPEG4-GENERIC`); empty when unknown. */
  encoding: string;
  /** RTP clock rate in Hz (audio: the sampling rate). */
  clockRate?: number;
  channels?: number;
  /** fmtp parameters of the payload type, names lower-cased. */
  fmtp: Record<string, string>;
  /** `b=AS:` bandwidth in kb/s. */
  bandwidthKbps?: number;
  /** A frame size the camera states in an attribute (`a=framesize:`, `a=x-dimensions:`, `a=cliprect:`). */
  frameSize?: { width: number; height: number };
  framerate?: number;
}

/** Static payload types of RFC 3551 that need no rtpmap line. */
const STATIC: Record<number, { encoding: string; clockRate: number; channels?: number }> = {
  0: { encoding: 'PCMU', clockRate: 8000, channels: 1 },
  3: { encoding: 'GSM', clockRate: 8000, channels: 1 },
  4: { encoding: 'G723', clockRate: 8000, channels: 1 },
  8: { encoding: 'PCMA', clockRate: 8000, channels: 1 },
  9: { encoding: 'G722', clockRate: 8000, channels: 1 },
  10: { encoding: 'L16', clockRate: 44100, channels: 2 },
  11: { encoding: 'L16', clockRate: 44100, channels: 1 },
  14: { encoding: 'MPA', clockRate: 90000 },
  18: { encoding: 'G729', clockRate: 8000, channels: 1 },
  26: { encoding: 'JPEG', clockRate: 90000 },
  31: { encoding: 'H261', clockRate: 90000 },
  32: { encoding: 'MPV', clockRate: 90000 },
  33: { encoding: 'MP2T', clockRate: 90000 },
  34: { encoding: 'H263', clockRate: 90000 },
};

function positive(s: string | undefined): number | undefined {
  const n = Number(s);
  return s !== undefined && s !== '' && Number.isFinite(n) && n > 0 ? n : undefined;
}

function size(w: string | undefined, h: string | undefined): { width: number; height: number } | undefined {
  const width = positive(w);
  const height = positive(h);
  return width && height && Number.isInteger(width) && Number.isInteger(height) ? { width, height } : undefined;
}

/** Parses the fmtp parameter list `a=b;c=d` (values may contain `=`, as base64 does). */
export function parseFmtp(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    if (name) out[name] = eq < 0 ? '' : part.slice(eq + 1).trim();
  }
  return out;
}

/** The media sections of an SDP text, in order. */
export function parseSdp(text: string): SdpMedia[] {
  const media: SdpMedia[] = [];
  let current: SdpMedia | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.length < 2 || line[1] !== '=') continue;
    const kind = line[0];
    const value = line.slice(2);
    if (kind === 'm') {
      const [type = '', , , fmt] = value.split(/\s+/);
      const pt = Number(fmt);
      const known = STATIC[pt];
      current = {
        type: type.toLowerCase(),
        payloadType: Number.isInteger(pt) ? pt : -1,
        encoding: known?.encoding ?? '',
        ...(known ? { clockRate: known.clockRate } : {}),
        ...(known?.channels ? { channels: known.channels } : {}),
        fmtp: {},
      };
      media.push(current);
      continue;
    }
    if (!current) continue;
    if (kind === 'b') {
      const m = /^AS:(\d+)/i.exec(value);
      if (m) current.bandwidthKbps = Number(m[1]);
      continue;
    }
    if (kind !== 'a') continue;
    const colon = value.indexOf(':');
    const attr = (colon < 0 ? value : value.slice(0, colon)).toLowerCase();
    const rest = colon < 0 ? '' : value.slice(colon + 1).trim();
    const [ptText = '', ...more] = rest.split(/\s+/);
    const forThis = Number(ptText) === current.payloadType;
    switch (attr) {
      case 'rtpmap': {
        if (!forThis) break;
        const [encoding = '', clock, channels] = more.join(' ').split('/');
        current.encoding = encoding;
        const c = positive(clock);
        if (c) current.clockRate = c;
        const ch = positive(channels);
        if (ch) current.channels = ch;
        break;
      }
      case 'fmtp':
        if (forThis) current.fmtp = parseFmtp(more.join(' '));
        break;
      case 'framesize': {
        // a=framesize:96 1280-720
        const [w, h] = (more[0] ?? '').split('-');
        current.frameSize ??= forThis ? size(w, h) : undefined;
        break;
      }
      case 'x-dimensions': {
        // a=x-dimensions:1280,720
        const [w, h] = rest.split(',');
        current.frameSize ??= size(w?.trim(), h?.trim());
        break;
      }
      case 'cliprect': {
        // a=cliprect:0,0,720,1280 (top, left, bottom, right)
        const [, , bottom, right] = rest.split(',');
        current.frameSize ??= size(right?.trim(), bottom?.trim());
        break;
      }
      case 'framerate': {
        const f = positive(rest);
        if (f) current.framerate = f;
        break;
      }
    }
  }
  return media;
}
