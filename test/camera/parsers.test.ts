/**
 * The camera folder's parsers on their own: SDP, H.264/H.265 parameter sets (sets made by x264,
 * x265 and GStreamer), Digest and Basic authentication (the RFCs' own examples), stream URLs,
 * Motion JPEG parts and JPEG sizes. Hostile input gives undefined or a message, never a throw.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  basicAuthorization,
  digestAuthorization,
  parseChallenges,
  pickChallenge,
} from '../../src/drivers/camera/auth.ts';
import { isJpeg, jpegSize, MultipartReader, multipartBoundary } from '../../src/drivers/camera/mjpeg.ts';
import {
  h264PictureSize,
  h264SizeFromFmtp,
  h265PictureSize,
  h265SizeFromFmtp,
} from '../../src/drivers/camera/parameter-sets.ts';
import { factsFromSdp } from '../../src/drivers/camera/probe-rtsp.ts';
import { parseSdp } from '../../src/drivers/camera/sdp.ts';
import {
  maskText,
  maskUrl,
  parseStreamUrl,
  streamIdentity,
  urlWithAccount,
} from '../../src/drivers/camera/stream-url.ts';
import { decodedSize, makeJpegs } from './servers.ts';

const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

/** The SDP GStreamer's RTSP server answers for the /h264 mount of test/camera/rtsp_server.py. */
const GSTREAMER_SDP = [
  'v=0',
  'o=- 8756572010430600579 1 IN IP4 127.0.0.1',
  's=Session streamed with GStreamer',
  't=0 0',
  'a=control:*',
  'm=video 0 RTP/AVP 96',
  'c=IN IP4 0.0.0.0',
  'b=AS:307',
  'a=rtpmap:96 H264/90000',
  'a=framerate:10',
  'a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0LAFtoCgL/lwFqDAwNSgAAAAwCAAAAKR4sXUA==,aM48gA==;profile-level-id=42c016',
  'a=control:stream=0',
  'm=audio 0 RTP/AVP 8',
  'c=IN IP4 0.0.0.0',
  'a=rtpmap:8 PCMA/8000',
  'a=control:stream=1',
  '',
].join('\r\n');

describe('SDP', () => {
  test('the media of a GStreamer SDP: H.264 with its size from the SPS, PCMA audio, the bandwidth', () => {
    const media = parseSdp(GSTREAMER_SDP);
    assert.equal(media.length, 2);
    assert.equal(media[0]?.encoding, 'H264');
    assert.equal(media[0]?.clockRate, 90000);
    assert.equal(media[0]?.bandwidthKbps, 307);
    assert.equal(media[0]?.framerate, 10);
    assert.equal(media[0]?.fmtp['packetization-mode'], '1');
    const facts = factsFromSdp(GSTREAMER_SDP);
    assert.deepEqual(facts, {
      ok: true,
      facts: {
        protocol: 'rtsp',
        videoCodec: 'H264',
        resolution: { width: 640, height: 360 },
        audioCodec: 'PCMA',
        samplingRate: 8000,
        dataRate: 307,
      },
    });
  });

  test('static payload types need no rtpmap; MPEG-4 audio is served as AAC; a stated frame size is used when no SPS is given', () => {
    const sdp = [
      'v=0',
      'm=video 0 RTP/AVP 97',
      'a=rtpmap:97 H265/90000',
      'a=x-dimensions:1280,720',
      'm=audio 0 RTP/AVP 0',
      'm=audio 0 RTP/AVP 98',
      'a=rtpmap:98 MPEG4-GENERIC/16000/1',
    ].join('\n');
    const media = parseSdp(sdp);
    assert.equal(media[1]?.encoding, 'PCMU');
    assert.equal(media[1]?.clockRate, 8000);
    assert.equal(media[2]?.encoding, 'MPEG4-GENERIC');
    assert.equal(media[2]?.clockRate, 16000);
    const facts = factsFromSdp(sdp);
    assert.ok(facts.ok);
    assert.deepEqual(facts.facts.resolution, { width: 1280, height: 720 });
    assert.equal(facts.facts.audioCodec, 'PCMU', 'the first audio stream');
    const aac = factsFromSdp(
      'v=0\nm=video 0 RTP/AVP 96\na=rtpmap:96 H264/90000\na=framesize:96 1920-1080\nm=audio 0 RTP/AVP 98\na=rtpmap:98 mpeg4-generic/48000/2',
    );
    assert.ok(aac.ok);
    assert.equal(aac.facts.audioCodec, 'AAC');
    assert.equal(aac.facts.samplingRate, 48000);
    assert.deepEqual(aac.facts.resolution, { width: 1920, height: 1080 });
  });

  test('video other than H.264 and H.265, or none, is 110012 naming what the camera sends', () => {
    const cases: [string, RegExp][] = [
      ['v=0\nm=video 0 RTP/AVP 26', /JPEG/],
      ['v=0\nm=video 0 RTP/AVP 96\na=rtpmap:96 MP4V-ES/90000', /MP4V-ES/],
      ['v=0\nm=video 0 RTP/AVP 96\na=rtpmap:96 VP8/90000', /VP8/],
      ['v=0\nm=audio 0 RTP/AVP 8', /no video/],
      ['', /no video/],
      ['not an sdp at all', /no video/],
    ];
    for (const [sdp, message] of cases) {
      const r = factsFromSdp(sdp);
      assert.equal(r.ok, false, sdp);
      if (!r.ok) {
        assert.equal(r.code, 110012);
        assert.match(r.message, message);
      }
    }
  });

  test('whatever text a camera sends as SDP, reading it never throws', () => {
    const line = fc.oneof(
      fc.string(),
      fc.constantFrom('m=video 0 RTP/AVP 96', 'a=rtpmap:96 H264/90000', 'a=fmtp:96 sprop-parameter-sets=Z0LA,aM4'),
      fc
        .tuple(
          fc.constantFrom('a=fmtp:96 sprop-parameter-sets=', 'a=fmtp:96 sprop-sps=', 'a=rtpmap:96 '),
          fc.base64String(),
        )
        .map(([a, b]) => a + b),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const r = factsFromSdp(lines.join('\r\n'));
        assert.ok(r.ok || r.code === 110012);
      }),
      { numRuns: 500 },
    );
  });
});

describe('parameter sets', () => {
  const h264: [string, string, number, number][] = [
    ['GStreamer x264, baseline, cropped to 360 lines', 'Z0LAFtoCgL/lwFqDAwNSgAAAAwCAAAAKR4sXUA==', 640, 360],
    ['ffmpeg libx264, high, 1080 lines cropped from 1088', 'Z2QAKKzZQHgCJ+XARAAAAwAEAAADAMg8YMZY', 1920, 1080],
    ['ffmpeg libx264, high 4:4:4, odd size', 'Z/QAIJGbKArAx8XH4CIAAAMAAgAAAwBkHjBjLA==', 1366, 770],
    ['ffmpeg libx264, main, PAL', 'Z01AHuygWhJsBEAAAAMAQAAADIfFCmWA', 720, 576],
  ];
  for (const [what, sps, width, height] of h264)
    test(`H.264 SPS (${what}) gives ${width}x${height}`, () => {
      assert.deepEqual(h264PictureSize(b64(sps)), { width, height });
      assert.deepEqual(h264SizeFromFmtp({ 'sprop-parameter-sets': `${sps},aM48gA==` }), { width, height });
    });

  const h265: [string, string, number, number][] = [
    ['GStreamer x265', 'QgEBBAgAAAMAmAgAAAMAADyQAUEB4ilLdJSYX/4AAgAC1BgYGBAAAAMAEAAAAwCggA==', 320, 240],
    ['ffmpeg libx265, conformance window', 'QgEBAWAAAAMAkAAAAwAAAwB4oAPAgBDlllZpJMrwFoCAAAADAIAAAAyE', 1920, 1080],
    ['ffmpeg libx265, 720p', 'QgEBAWAAAAMAkAAAAwAAAwBdoAKAgC0WWVmkkyvAWgIAAAMAAgAAAwAyEA==', 1280, 720],
  ];
  for (const [what, sps, width, height] of h265)
    test(`H.265 SPS (${what}) gives ${width}x${height}`, () => {
      assert.deepEqual(h265PictureSize(b64(sps)), { width, height });
      assert.deepEqual(h265SizeFromFmtp({ 'sprop-sps': sps }), { width, height });
    });

  test('a set that is not an SPS, cut short, or not base64 gives no size', () => {
    assert.equal(h264PictureSize(b64('aM48gA==')), undefined, 'a PPS');
    assert.equal(h264PictureSize(b64('Z0LAFtoC')), undefined, 'cut short');
    assert.equal(h265PictureSize(b64('QAEMAf//BAgAAAMAmAgAAAMAADy6AkA=')), undefined, 'a VPS');
    assert.equal(h264SizeFromFmtp({ 'sprop-parameter-sets': '!!!,???' }), undefined);
    assert.equal(h265SizeFromFmtp({}), undefined);
  });

  test('random bytes as a parameter set never throw', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.boolean(), (bytes, sps) => {
        const data = new Uint8Array(bytes);
        if (sps && data.length > 1) {
          data[0] = 0x67;
        }
        const a = h264PictureSize(data);
        const b = h265PictureSize(data);
        for (const s of [a, b]) if (s) assert.ok(s.width > 0 && s.height > 0 && s.width <= 16384);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('authentication', () => {
  test('Digest with qop auth gives the response of RFC 2617 section 3.5', () => {
    const [challenge] = parseChallenges([
      'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    ]);
    assert.ok(challenge);
    const header = digestAuthorization(
      challenge,
      { username: 'Mufasa', password: 'Circle Of Life' },
      { method: 'GET', uri: '/dir/index.html', nc: 1, cnonce: '0a4f113b' },
    );
    assert.match(header, /response="6629fae49393a05397450978507c4ef1"/);
    assert.match(header, /qop=auth, nc=00000001, cnonce="0a4f113b"/);
    assert.match(header, /opaque="5ccc069c403ebaf9f0171e9517f40e41"/);
  });

  test('Digest with MD5 and SHA-256 gives the responses of RFC 7616 section 3.9.1', () => {
    const params =
      'realm="http-auth@example.org", qop="auth, auth-int", nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
    const challenges = parseChallenges([`Digest ${params}, algorithm=SHA-256`, `Digest ${params}, algorithm=MD5`]);
    const req = {
      method: 'GET',
      uri: '/dir/index.html',
      nc: 1,
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    };
    const account = { username: 'Mufasa', password: 'Circle of Life' };
    assert.match(
      digestAuthorization(challenges[0] as never, account, req),
      /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/,
    );
    assert.match(
      digestAuthorization(challenges[1] as never, account, req),
      /response="8ca523f5e9506fed4657c9700eebdbec"/,
    );
  });

  test('Digest without qop (as GStreamer asks) is MD5(HA1:nonce:HA2)', () => {
    const [c] = parseChallenges(['Digest realm="GStreamer RTSP Server", nonce="d7c35f1c2d9e6269"']);
    const md5 = (s: string) => createHash('md5').update(s).digest('hex');
    const uri = 'rtsp://127.0.0.1:8554/h264';
    const want = md5(`${md5('admin:GStreamer RTSP Server:secret')}:d7c35f1c2d9e6269:${md5(`DESCRIBE:${uri}`)}`);
    const header = digestAuthorization(
      c as never,
      { username: 'admin', password: 'secret' },
      { method: 'DESCRIBE', uri, nc: 1 },
    );
    assert.match(header, new RegExp(`response="${want}"`));
    assert.doesNotMatch(header, /qop|nc=|cnonce/);
  });

  test('challenges are read from several headers and from one header holding several; Digest is preferred to Basic', () => {
    const cs = parseChallenges([
      'Basic realm="cam, one"',
      'Digest realm="x\\"y", nonce="n", stale=FALSE, Basic realm="z"',
    ]);
    assert.deepEqual(
      cs.map((c) => [c.scheme, c.params.realm]),
      [
        ['basic', 'cam, one'],
        ['digest', 'x"y'],
        ['basic', 'z'],
      ],
    );
    assert.equal(pickChallenge(cs)?.scheme, 'digest');
    assert.equal(
      pickChallenge(parseChallenges(['Digest realm="r", nonce="n", algorithm=SHA-512-256', 'Basic realm="r"']))?.scheme,
      'basic',
    );
    assert.equal(pickChallenge(parseChallenges(['Digest realm="r", nonce="n", qop="auth-int"'])), undefined);
    for (const algorithm of ['constructor', '__proto__', 'toString'])
      assert.equal(
        pickChallenge(parseChallenges([`Digest realm="r", nonce="n", algorithm=${algorithm}`, 'Basic realm="r"']))
          ?.scheme,
        'basic',
        `an unknown algorithm named ${algorithm} is not answered with Digest`,
      );
    assert.equal(
      basicAuthorization({ username: 'Aladdin', password: 'open sesame' }),
      'Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==',
    );
    fc.assert(fc.property(fc.array(fc.string()), (values) => void parseChallenges(values)));
  });
});

describe('stream URLs', () => {
  test('RTSP and ESP32-CAM URLs are read with their default ports and the account apart', () => {
    const a = parseStreamUrl('rtsp://ad%40min:p%3Ass@Cam.Local/live/ch0?x=1', 'rtsp');
    assert.ok(!('error' in a));
    assert.equal(a.url, 'rtsp://cam.local:554/live/ch0?x=1');
    assert.deepEqual(a.account, { username: 'ad@min', password: 'p:ss' });
    assert.equal(urlWithAccount(a, a.account), 'rtsp://ad%40min:p%3Ass@cam.local:554/live/ch0?x=1');
    const b = parseStreamUrl('rtsp://cam.local:554/live/ch0?x=1', 'rtsp');
    assert.ok(!('error' in b));
    assert.equal(streamIdentity(a), streamIdentity(b), 'the same stream, whatever the account and the port written');
    const esp = parseStreamUrl('http://192.168.1.30:81/stream', 'esp32-cam');
    assert.ok(!('error' in esp));
    assert.equal(esp.port, 81);
    const v6 = parseStreamUrl('rtsp://[::1]:8554/x', 'rtsp');
    assert.ok(!('error' in v6));
    assert.equal(v6.hostname, '::1');
  });

  test('bad shapes are named, never repeating a password', () => {
    for (const [raw, protocol, message] of [
      ['rtsp:/x', 'rtsp', /does not start with rtsp:\/\//],
      ['ftp://x/y', 'rtsp', /not ftp:/],
      ['rtsp://x/y', 'esp32-cam', /starts with http:\/\//],
      ['rtsp://u:hunter2@x:70000/y', 'rtsp', /./],
      ['rtsp://u:hunter2@/y', 'rtsp', /./],
      ['rtsp://x/y#frag', 'rtsp', /fragment/],
      [`rtsp://x/${'a'.repeat(3000)}`, 'rtsp', /longer than/],
      ['rtsp://x y/z', 'rtsp', /white space/],
    ] as const) {
      const r = parseStreamUrl(raw, protocol);
      assert.ok('error' in r, raw);
      assert.match(r.error, message);
      assert.doesNotMatch(r.error, /hunter2/);
    }
    fc.assert(fc.property(fc.string(), (s) => void parseStreamUrl(s, 'rtsp')));
  });

  test('credentials are masked in every URL that is logged or shown', () => {
    assert.equal(maskUrl('rtsp://admin:secret@10.0.0.2:554/x'), 'rtsp://***@10.0.0.2:554/x');
    assert.equal(maskUrl('rtsp://10.0.0.2/x'), 'rtsp://10.0.0.2/x');
    assert.equal(
      maskText('[rtsp @ 0x1] method DESCRIBE failed for rtsp://admin:secret@10.0.0.2/x: 401'),
      '[rtsp @ 0x1] method DESCRIBE failed for rtsp://***@10.0.0.2/x: 401',
    );
  });
});

describe('Motion JPEG', () => {
  const frames = makeJpegs(64, 48, 3);
  const boundary = '123456789000000000000987654321';
  const stream = (withLength: boolean, dashes = '') =>
    Buffer.concat(
      frames.flatMap((f) => [
        Buffer.from(
          `\r\n--${dashes}${boundary}\r\nContent-Type: image/jpeg\r\n${withLength ? `Content-Length: ${f.length}\r\n` : ''}\r\n`,
        ),
        f,
      ]),
    );

  test('the parts of a stream are its frames, however the bytes are cut, with or without Content-Length', () => {
    for (const withLength of [true, false]) {
      const bytes = Buffer.concat([stream(withLength), Buffer.from(`\r\n--${boundary}\r\n`)]);
      for (const step of [1, 7, 500, bytes.length]) {
        const got: Buffer[] = [];
        const reader = new MultipartReader(boundary, (f) => got.push(f));
        for (let i = 0; i < bytes.length; i += step) reader.push(bytes.subarray(i, i + step));
        assert.deepEqual(got, frames, `content-length ${withLength}, chunks of ${step}`);
      }
    }
  });

  test('the boundary is read from the content type, with or without quotes and leading dashes', () => {
    assert.equal(multipartBoundary(`multipart/x-mixed-replace;boundary=${boundary}`), boundary);
    assert.equal(multipartBoundary('multipart/x-mixed-replace; boundary="--frame"'), 'frame');
    assert.equal(multipartBoundary('image/jpeg'), undefined);
    assert.equal(multipartBoundary(undefined), undefined);
    const got: Buffer[] = [];
    const reader = new MultipartReader('frame', (f) => got.push(f));
    reader.push(
      Buffer.concat(
        [stream(true, '--').toString('latin1').replaceAll(boundary, 'frame')].map((s) => Buffer.from(s, 'latin1')),
      ),
    );
    reader.push(Buffer.from('\r\n----frame\r\n'));
    assert.equal(got.length, 3);
  });

  test('the size of a JPEG is read from its SOF marker, as ffprobe decodes it', () => {
    for (const [w, h] of [
      [64, 48],
      [321, 243],
    ] as const) {
      const [jpeg] = makeJpegs(w, h, 1);
      assert.ok(jpeg && isJpeg(jpeg));
      assert.deepEqual(jpegSize(jpeg), { width: w, height: h });
      assert.deepEqual(decodedSize(jpeg), { width: w, height: h });
    }
    assert.equal(jpegSize(Buffer.from('not a jpeg')), undefined);
    assert.equal(isJpeg(Buffer.from([0xff, 0xd8, 0xff])), false);
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        (b) => void jpegSize(Buffer.concat([Buffer.from([0xff, 0xd8]), b])),
      ),
    );
  });

  test('random bytes fed to the part reader never throw', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 100 }), { maxLength: 20 }), (chunks) => {
        const reader = new MultipartReader('b', () => {});
        for (const c of chunks) reader.push(Buffer.concat([Buffer.from('--b\r\n\r\n'), c]));
      }),
    );
  });
});
