/**
 * Firmware for the fake devices: OTA upgrade files in the Zigbee OTA file format (ZCL 11.4: a
 * 56-byte header with the file identifier, manufacturer code, image type, file version and a
 * 32-byte header string, then tagged sub-elements; here one Upgrade Image element of filler
 * bytes), and the index the converters' OTA code reads (a JSON list of image metadata), written
 * into a folder as a user would lay one out for a gateway without internet.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeImage {
  manufacturerCode: number;
  imageType: number;
  fileVersion: number;
  /** The header string (at most 32 bytes): the fake device takes it as its new swBuildId. */
  build: string;
  /** Bytes of the upgrade image element (the image is 62 bytes more). */
  bodyBytes?: number;
}

/** The bytes of an OTA upgrade file. */
export function otaImage(i: FakeImage): Buffer {
  const body = Buffer.alloc(i.bodyBytes ?? 900);
  for (let k = 0; k < body.length; k++) body[k] = (k * 31 + i.fileVersion) & 0xff;
  const header = Buffer.alloc(56);
  header.writeUInt32LE(0x0beef11e, 0);
  header.writeUInt16LE(0x0100, 4);
  header.writeUInt16LE(56, 6);
  header.writeUInt16LE(0, 8);
  header.writeUInt16LE(i.manufacturerCode, 10);
  header.writeUInt16LE(i.imageType, 12);
  header.writeUInt32LE(i.fileVersion, 14);
  header.writeUInt16LE(2, 18);
  header.write(i.build.slice(0, 32), 20, 'utf8');
  const element = Buffer.alloc(6);
  element.writeUInt16LE(0, 0);
  element.writeUInt32LE(body.length, 2);
  const total = header.length + element.length + body.length;
  header.writeUInt32LE(total, 52);
  return Buffer.concat([header, element, body]);
}

/** One entry of an OTA index, as the converters' index lists images. */
export interface IndexEntry {
  fileName: string;
  fileVersion: number;
  fileSize: number;
  manufacturerCode: number;
  imageType: number;
  sha512: string;
  url: string;
}

/**
 * Writes the images into `dir` with an `index.json` naming them by file name (relative URLs, as a
 * folder copied from elsewhere would have them), or by absolute path (`absolute`: what Zigbee2MQTT
 * itself needs, as it reads a relative one from its own data folder); returns the index entries.
 */
export function writeOtaFolder(dir: string, images: readonly FakeImage[], absolute = false): IndexEntry[] {
  mkdirSync(dir, { recursive: true });
  const entries = images.map((i) => {
    const bytes = otaImage(i);
    const fileName = `${i.manufacturerCode.toString(16)}-${i.imageType.toString(16)}-${i.fileVersion.toString(16)}.ota`;
    writeFileSync(join(dir, fileName), bytes);
    return {
      fileName,
      fileVersion: i.fileVersion,
      fileSize: bytes.length,
      manufacturerCode: i.manufacturerCode,
      imageType: i.imageType,
      sha512: createHash('sha512').update(bytes).digest('hex'),
      url: absolute ? join(dir, fileName) : fileName,
    };
  });
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify(entries, null, 2)}\n`);
  return entries;
}
