/**
 * A camera of the gateway in Home Assistant: an MQTT `camera` entity whose topic receives raw JPEG
 * bytes (no `image_encoding`: Home Assistant reads the payload as the picture itself), and a
 * `button` "Snapshot" that asks for a picture now. The pictures are the gateway's own snapshots,
 * pushed by the bridge (camera-feed.ts); no stream address or password is in any config.
 */
import type { DeviceRecord } from '../../core/devices/contract.ts';
import type { Entity } from './entity.ts';
import { refuse } from './entity.ts';
import { shown } from './values.ts';

/** The driver whose devices have snapshots (src/drivers/camera). */
const CAMERA_DRIVER = 'camera';

/** The key of the camera entity: its pictures go to `<base>/<serial>/camera`. */
export const CAMERA_KEY = 'camera';

/** Home Assistant's default `payload_press`. */
const PRESS = 'PRESS';

/** Whether the gateway can take snapshots of the device (a camera of the camera driver). */
export function hasSnapshots(device: DeviceRecord): boolean {
  return device.driver === CAMERA_DRIVER;
}

/** The camera entity and its Snapshot button. */
export function cameraEntities(label: string): Entity[] {
  const camera: Entity = {
    component: 'camera',
    key: CAMERA_KEY,
    sources: new Set(['camera-stream']),
    followsDevice: true,
    commands: [],
    // The camera is the device: no entity name of its own.
    config: (t) => ({ name: null, topic: t.state() }),
    states: () => [],
  };
  const button: Entity = {
    component: 'button',
    key: 'snapshot',
    sources: new Set(['camera-stream']),
    followsDevice: true,
    commands: [''],
    config: (t) => ({ name: label, command_topic: t.command(), payload_press: PRESS }),
    states: () => [],
    command(_sub, payload) {
      if (payload !== PRESS) return refuse(`payload: ${shown(payload)} is not ${PRESS}`);
      return { ok: true, snapshot: true };
    },
  };
  return [camera, button];
}
