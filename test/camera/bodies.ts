/** D2 bodies for the camera tests, shaped as the spec's example and as clients vary it. */

/** A D2 body with the stream URL where the spec's example puts it (the capability's configuration). */
export function cameraBody(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const protocal = url.startsWith('rtsp') ? 'RTSP' : 'ESP32-CAM';
  return {
    name: 'Porch camera',
    display_category: 'camera',
    capabilities: [
      {
        capability: 'camera-stream',
        permission: '0010',
        configuration: { streamSetting: { type: 'object', permission: '11', value: { stream_url: url } } },
      },
    ],
    protocal,
    manufacturer: 'Acme',
    model: 'C1',
    firmware_version: '1.0.0',
    ...extra,
  };
}

/** The stream URL at the top of the body (`configuration`), and the capability without one. */
export function topLevelBody(url: string, account?: { username: string; password: string }): Record<string, unknown> {
  return {
    ...cameraBody(url),
    capabilities: [{ capability: 'camera-stream', permission: '0010' }],
    configuration: {
      streamSetting: { type: 'object', permission: '11', value: { stream_url: url, ...(account ?? {}) } },
    },
  };
}

/** The stream URL as `streamUrl` of the 2.6 setting (`settings.streamSetting.value`). */
export function settingsBody(url: string, account?: { username: string; password: string }): Record<string, unknown> {
  return {
    ...cameraBody(url),
    capabilities: [
      {
        capability: 'camera-stream',
        permission: '0010',
        settings: {
          streamSetting: { type: 'object', permission: '11', value: { streamUrl: url, ...(account ?? {}) } },
        },
      },
    ],
  };
}
