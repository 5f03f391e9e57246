/**
 * The picture size of an H.264 or H.265 stream, read from the sequence parameter set the camera
 * puts in its SDP (`sprop-parameter-sets` for H.264, RFC 6184; `sprop-sps` for H.265, RFC 7798).
 * Only the syntax up to the size (and its cropping window) is parsed: ITU-T H.264 section
 * 7.3.2.1.1 and H.265 section 7.3.2.2. A malformed set gives undefined, never an exception.
 */

export interface PictureSize {
  width: number;
  height: number;
}

/** Removes emulation prevention bytes (00 00 03 -> 00 00) from a NAL unit. */
function unescapeRbsp(nal: Uint8Array): Uint8Array {
  const out = new Uint8Array(nal.length);
  let n = 0;
  let zeros = 0;
  for (const b of nal) {
    if (zeros >= 2 && b === 3) {
      zeros = 0;
      continue;
    }
    out[n++] = b;
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return out.subarray(0, n);
}

class EndOfData extends Error {}

/** Reads bits, unsigned and Exp-Golomb codes, most significant bit first. */
class BitReader {
  private pos = 0;
  constructor(private readonly data: Uint8Array) {}

  bit(): number {
    const byte = this.data[this.pos >> 3];
    if (byte === undefined) throw new EndOfData();
    const v = (byte >> (7 - (this.pos & 7))) & 1;
    this.pos++;
    return v;
  }

  bits(n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 2 + this.bit();
    return v;
  }

  skip(n: number): void {
    for (let i = 0; i < n; i++) this.bit();
  }

  /** ue(v) */
  ue(): number {
    let zeros = 0;
    while (this.bit() === 0) {
      zeros++;
      if (zeros > 31) throw new EndOfData();
    }
    return 2 ** zeros - 1 + this.bits(zeros);
  }

  /** se(v) */
  se(): number {
    const k = this.ue();
    return k % 2 === 1 ? (k + 1) / 2 : -(k / 2);
  }
}

/** Profiles of H.264 whose SPS carries chroma format and bit depths (7.3.2.1.1). */
const HIGH_PROFILES = new Set([100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135]);

function sane(w: number, h: number): PictureSize | undefined {
  return Number.isInteger(w) && Number.isInteger(h) && w > 0 && h > 0 && w <= 16384 && h <= 16384
    ? { width: w, height: h }
    : undefined;
}

/** The picture size in an H.264 SPS NAL unit (with its one-byte NAL header), after cropping. */
export function h264PictureSize(nal: Uint8Array): PictureSize | undefined {
  if (nal.length < 4 || ((nal[0] as number) & 0x1f) !== 7) return undefined;
  try {
    const r = new BitReader(unescapeRbsp(nal.subarray(1)));
    const profile = r.bits(8);
    r.skip(16); // constraint flags and level_idc
    r.ue(); // seq_parameter_set_id
    let chroma = 1;
    let separatePlanes = 0;
    if (HIGH_PROFILES.has(profile)) {
      chroma = r.ue();
      if (chroma === 3) separatePlanes = r.bit();
      r.ue(); // bit_depth_luma_minus8
      r.ue(); // bit_depth_chroma_minus8
      r.bit(); // qpprime_y_zero_transform_bypass_flag
      if (r.bit()) {
        // seq_scaling_matrix_present_flag: skip each scaling list that is present
        const lists = chroma === 3 ? 12 : 8;
        for (let i = 0; i < lists; i++) {
          if (!r.bit()) continue;
          const n = i < 6 ? 16 : 64;
          let last = 8;
          let next = 8;
          for (let j = 0; j < n; j++) {
            if (next !== 0) {
              next = (last + r.se() + 256) % 256;
            }
            last = next === 0 ? last : next;
          }
        }
      }
    }
    r.ue(); // log2_max_frame_num_minus4
    const pocType = r.ue();
    if (pocType === 0) r.ue();
    else if (pocType === 1) {
      r.bit();
      r.se();
      r.se();
      const cycle = r.ue();
      if (cycle > 255) return undefined;
      for (let i = 0; i < cycle; i++) r.se();
    }
    r.ue(); // max_num_ref_frames
    r.bit(); // gaps_in_frame_num_value_allowed_flag
    const widthMbs = r.ue() + 1;
    const heightMapUnits = r.ue() + 1;
    const frameMbsOnly = r.bit();
    if (!frameMbsOnly) r.bit(); // mb_adaptive_frame_field_flag
    r.bit(); // direct_8x8_inference_flag
    let crop = [0, 0, 0, 0];
    if (r.bit()) crop = [r.ue(), r.ue(), r.ue(), r.ue()];
    const [left, right, top, bottom] = crop as [number, number, number, number];
    const arrayType = separatePlanes ? 0 : chroma;
    const subW = arrayType === 1 || arrayType === 2 ? 2 : 1;
    const subH = arrayType === 1 ? 2 : 1;
    const cropX = arrayType === 0 ? 1 : subW;
    const cropY = (arrayType === 0 ? 1 : subH) * (2 - frameMbsOnly);
    const width = widthMbs * 16 - cropX * (left + right);
    const height = (2 - frameMbsOnly) * heightMapUnits * 16 - cropY * (top + bottom);
    return sane(width, height);
  } catch (err) {
    if (err instanceof EndOfData) return undefined;
    throw err;
  }
}

/** The picture size in an H.265 SPS NAL unit (with its two-byte NAL header), after the conformance window. */
export function h265PictureSize(nal: Uint8Array): PictureSize | undefined {
  if (nal.length < 4 || (((nal[0] as number) >> 1) & 0x3f) !== 33) return undefined;
  try {
    const r = new BitReader(unescapeRbsp(nal.subarray(2)));
    r.skip(4); // sps_video_parameter_set_id
    const maxSubLayersMinus1 = r.bits(3);
    r.bit(); // sps_temporal_id_nesting_flag
    // profile_tier_level(1, maxSubLayersMinus1): the general part is 88 bits plus level_idc (8).
    r.skip(96);
    const profilePresent: number[] = [];
    const levelPresent: number[] = [];
    for (let i = 0; i < maxSubLayersMinus1; i++) {
      profilePresent.push(r.bit());
      levelPresent.push(r.bit());
    }
    if (maxSubLayersMinus1 > 0) for (let i = maxSubLayersMinus1; i < 8; i++) r.skip(2);
    for (let i = 0; i < maxSubLayersMinus1; i++) {
      if (profilePresent[i]) r.skip(88);
      if (levelPresent[i]) r.skip(8);
    }
    r.ue(); // sps_seq_parameter_set_id
    const chroma = r.ue();
    let separatePlanes = 0;
    if (chroma === 3) separatePlanes = r.bit();
    const w = r.ue();
    const h = r.ue();
    let win = [0, 0, 0, 0];
    if (r.bit()) win = [r.ue(), r.ue(), r.ue(), r.ue()];
    const [left, right, top, bottom] = win as [number, number, number, number];
    const arrayType = separatePlanes ? 0 : chroma;
    const subW = arrayType === 1 || arrayType === 2 ? 2 : 1;
    const subH = arrayType === 1 ? 2 : 1;
    return sane(w - subW * (left + right), h - subH * (top + bottom));
  } catch (err) {
    if (err instanceof EndOfData) return undefined;
    throw err;
  }
}

/** Decodes one base64 parameter set; undefined when it is not base64. */
function fromBase64(s: string): Uint8Array | undefined {
  const t = s.trim();
  if (t === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(t)) return undefined;
  return new Uint8Array(Buffer.from(t, 'base64'));
}

/** The picture size from H.264 fmtp parameters (`sprop-parameter-sets`: SPS and PPS in base64). */
export function h264SizeFromFmtp(fmtp: Record<string, string>): PictureSize | undefined {
  for (const set of (fmtp['sprop-parameter-sets'] ?? '').split(',')) {
    const nal = fromBase64(set);
    const size = nal && h264PictureSize(nal);
    if (size) return size;
  }
  return undefined;
}

/** The picture size from H.265 fmtp parameters (`sprop-sps` in base64). */
export function h265SizeFromFmtp(fmtp: Record<string, string>): PictureSize | undefined {
  for (const set of (fmtp['sprop-sps'] ?? '').split(',')) {
    const nal = fromBase64(set);
    const size = nal && h265PictureSize(nal);
    if (size) return size;
  }
  return undefined;
}
