/** camera-stream (spec 2.6 and D2): stream settings of a camera; configuration only. */
import { num, obj, oneOf, opt, str } from '../schema.ts';
import type { CapabilityDef } from '../types.ts';

// Cameras without credentials omit the user part; ESP32-CAM devices stream over http (D2).
const streamUrl = str({
  pattern: /^(rtsps?|https?):\/\/\S+$/,
  patternDoc: 'an rtsp:// (or http:// for ESP32-CAM) URL',
});

const camera: CapabilityDef = {
  capability: 'camera-stream',
  doc: 'Video stream of a camera; configuration only, no state and no body.',
  naming: { kind: 'none' },
  body: {
    permission: '0010',
    control: null,
    settings: {
      streamSetting: {
        type: 'object',
        permission: '11',
        doc: '`value`: username, password, streamUrl, videoCodec, resolution, keyFrameInterval, audioCodec, samplingRate, dataRate (the spec requires all; this gateway fills what the stream tells and leaves out the rest)',
        // Filled by the gateway from probing the stream: a field the stream does not tell (the
        // key-frame interval, which no SDP carries; audio of a camera without audio) is left out
        // rather than invented, so none is required. A client changing the stream (D4) sends
        // only streamUrl, username and password; the probe fills the rest (docs/cameras.md).
        value: obj({
          username: opt(str()),
          password: opt(str()),
          streamUrl: opt(streamUrl),
          videoCodec: opt(str()),
          resolution: opt(obj({ width: num({ min: 0 }), height: num({ min: 0 }) })),
          keyFrameInterval: opt(num({ min: 0 })),
          audioCodec: opt(str()),
          samplingRate: opt(num({ min: 0, unit: 'Hz' })),
          dataRate: opt(num({ min: 0, unit: 'kb/s' })),
        }),
      },
    },
  },
  // D2: `configuration.streamSetting` = {type, permission (only `11`), value:{stream_url}}. Clients
  // differ in where they put the URL (stream_url, or streamUrl as in 2.6) and whether they send
  // type and permission; the account may come with it (D4 changes credentials this way).
  configuration: obj({
    streamSetting: obj({
      type: opt(str()),
      permission: opt(oneOf('11')),
      value: obj({
        stream_url: opt(streamUrl),
        streamUrl: opt(streamUrl),
        username: opt(str()),
        password: opt(str()),
      }),
    }),
  }),
  examples: {
    declaration: [
      {
        capability: 'camera-stream',
        permission: '0010',
        settings: {
          streamSetting: {
            permission: '11',
            type: 'object',
            value: {
              username: 'admin',
              password: 'secret',
              streamUrl: 'rtsp://admin:secret@192.168.1.20:554/stream1',
              videoCodec: 'H264',
              resolution: { width: 1920, height: 1080 },
              keyFrameInterval: 50,
              audioCodec: 'AAC',
              samplingRate: 16000,
              dataRate: 2048,
            },
          },
        },
        configuration: {
          streamSetting: { type: 'object', permission: '11', value: { stream_url: 'rtsp://192.168.1.21:554/live' } },
        },
      },
    ],
  },
};

export const cameraCapabilities: readonly CapabilityDef[] = [camera];
