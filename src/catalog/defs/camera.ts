/** camera-stream (spec 2.6 and D2): stream settings of a camera; configuration only. */
import { num, obj, oneOf, str } from '../schema.ts';
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
        doc: '`value`: username, password, streamUrl, videoCodec, resolution, keyFrameInterval, audioCodec, samplingRate, dataRate (all required)',
        value: obj({
          username: str(),
          password: str(),
          streamUrl,
          videoCodec: str(),
          resolution: obj({ width: num({ min: 0 }), height: num({ min: 0 }) }),
          keyFrameInterval: num({ min: 0 }),
          audioCodec: str(),
          samplingRate: num({ min: 0, unit: 'Hz' }),
          dataRate: num({ min: 0, unit: 'kb/s' }),
        }),
      },
    },
  },
  // D2: `configuration.streamSetting` = {type, permission (only `11`), value:{stream_url}}.
  configuration: obj({
    streamSetting: obj({ type: str(), permission: oneOf('11'), value: obj({ stream_url: streamUrl }) }),
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
