/**
 * Where firmware comes from when the user says (`zigbee.ota_index`, src/zigbee/ota-index.ts): a
 * folder (with an index naming its images relative to it, or none: the images' own headers make
 * it), an index file, an index on a web server (here on 127.0.0.1), each resolved into an index
 * zigbee-herdsman reads; and everything that cannot be read said in one line, the deadline of a
 * fetch on the gateway's clock.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/lib/clock.ts';
import { resolveOtaIndex } from '../../src/zigbee/index.ts';
import { advanceUntil, ManualClock } from '../helpers/clock.ts';
import { tempDir } from '../helpers/foundation.ts';
import { otaImage, writeOtaFolder } from '../z2m/fake/ota-image.ts';

const LIGHT = { manufacturerCode: 0x100b, imageType: 0x0103, fileVersion: 0x01001000, build: '1.104.2' };
const BULB = { manufacturerCode: 0x117c, imageType: 0x2101, fileVersion: 0x23090000, build: '2.4' };

describe('a firmware index the user gives', () => {
  let dir: string;
  let out: string;
  let server: Server;
  let base: string;
  /** Requests the server answers with silence (for the deadline). */
  let hang = false;

  before(async () => {
    dir = tempDir('opencube-ota-index-');
    out = join(dir, 'resolved.json');
    writeOtaFolder(join(dir, 'with-index'), [LIGHT, BULB]);
    mkdirSync(join(dir, 'bare'));
    writeFileSync(join(dir, 'bare', 'light.ota'), otaImage(LIGHT));
    writeFileSync(join(dir, 'bare', 'bulb.zigbee'), Buffer.concat([Buffer.from('VENDOR-HEADER'), otaImage(BULB)]));
    writeFileSync(join(dir, 'bare', 'README.txt'), 'not an image');
    writeFileSync(join(dir, 'bad.json'), 'oops');
    writeFileSync(join(dir, 'obj.json'), '{}');
    writeFileSync(join(dir, 'nourl.json'), '[{"fileVersion":1}]');
    writeFileSync(join(dir, 'fake.json'), '[{"url":"bad.json"}]');
    server = createServer((req, res) => {
      if (hang) return;
      if (req.url === '/fw/index.json') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify([{ ...LIGHT, fileSize: 962, url: 'images/light.ota' }]));
      } else if (req.url === '/fw/partial.json') res.end(JSON.stringify([{ url: 'light.ota' }]));
      else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a folder with an index, its images named relative to the folder made absolute', async () => {
    const r = await resolveOtaIndex(join(dir, 'with-index'), out, systemClock);
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.deepEqual(
      r.entries.map((e) => [e.url, e.fileVersion, e.manufacturerCode]),
      [
        [join(dir, 'with-index', '100b-103-1001000.ota'), LIGHT.fileVersion, LIGHT.manufacturerCode],
        [join(dir, 'with-index', '117c-2101-23090000.ota'), BULB.fileVersion, BULB.manufacturerCode],
      ],
    );
    assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), r.entries, 'written where the backend reads it');
  });

  it('indexes a folder without an index from its images’ own headers (a vendor header before them too)', async () => {
    const r = await resolveOtaIndex(join(dir, 'bare'), out, systemClock);
    assert.ok(r.ok, r.ok ? '' : r.message);
    assert.deepEqual(
      r.entries.map((e) => [e.url.split('/').at(-1), e.manufacturerCode, e.imageType, e.fileVersion, e.fileSize]),
      [
        ['bulb.zigbee', BULB.manufacturerCode, BULB.imageType, BULB.fileVersion, otaImage(BULB).length],
        ['light.ota', LIGHT.manufacturerCode, LIGHT.imageType, LIGHT.fileVersion, otaImage(LIGHT).length],
      ],
    );
  });

  it('reads an index file, and an index on a web server whose images are named relative to it', async () => {
    const file = await resolveOtaIndex(join(dir, 'with-index', 'index.json'), out, systemClock);
    assert.ok(file.ok && file.entries.length === 2);
    const web = await resolveOtaIndex(`${base}/fw/index.json`, out, systemClock);
    assert.ok(web.ok, web.ok ? '' : web.message);
    assert.equal(web.entries[0]?.url, `${base}/fw/images/light.ota`);
  });

  const refusals: [string, () => string, string | ((where: string) => string)][] = [
    ['a path that does not exist', () => join(dir, 'nowhere'), (w) => `${w}: no such file or folder`],
    ['a file that is not JSON', () => join(dir, 'bad.json'), (w) => `${w}: not a JSON index (a list of images)`],
    [
      'an index that is not a list',
      () => join(dir, 'obj.json'),
      (w) => `${w}: index: expected an array, got an object`,
    ],
    ['an image without a url', () => join(dir, 'nourl.json'), (w) => `${w}: 0.url: required`],
    [
      'an image file that is not an OTA file',
      () => join(dir, 'fake.json'),
      (w) => `${w}: 0.url: ${join(dir, 'bad.json')} is not an OTA file (no OTA header)`,
    ],
    [
      'an index the web server does not have',
      () => `${base}/fw/missing.json`,
      (w) => `${w}: the server answered HTTP 404`,
    ],
    [
      'an image on the web whose index does not say its version',
      () => `${base}/fw/partial.json`,
      (w) => `${w}: 0.url: an image on the web needs fileVersion, manufacturerCode and imageType`,
    ],
  ];
  for (const [what, where, expected] of refusals)
    it(`says what is wrong with ${what}, in one line`, async () => {
      const w = where();
      const r = await resolveOtaIndex(w, out, systemClock);
      assert.ok(!r.ok);
      assert.equal(r.message, typeof expected === 'string' ? expected : expected(w));
    });

  it('gives up on a web server that does not answer at 30 s of the gateway’s clock', async () => {
    hang = true;
    try {
      const clock = new ManualClock();
      const { value, elapsedMs } = await advanceUntil(clock, resolveOtaIndex(`${base}/fw/index.json`, out, clock), {
        stepMs: 5000,
      });
      assert.ok(!value.ok);
      assert.equal(value.message, `${base}/fw/index.json: no complete answer within 30000 ms`);
      assert.equal(elapsedMs, 30_000);
    } finally {
      hang = false;
    }
  });
});
