/**
 * Holding a device's firmware download inside the real Zigbee2MQTT (the fake network's hooks,
 * fake/mqtt-hooks.ts): its next download waits after the first image block until released, so a
 * test can act while an update surely runs (stop it, read its progress).
 */
import { type MqttRecorder, on } from './recorder.ts';

export interface OtaHold {
  /** Settles when the device has taken its first block and waits. */
  held: Promise<void>;
  /** Lets the download go on. */
  release(): Promise<void>;
}

export async function holdOtaDownload(rec: MqttRecorder, hookPrefix: string, ieee: string): Promise<OtaHold> {
  const from = rec.mark();
  await rec.publish(`${hookPrefix}/${ieee}/ota-hold`, {});
  return {
    held: rec
      .waitFor(
        on(`${hookPrefix}/events`, (j) => j.type === 'ota_held' && j.ieee === ieee),
        from,
      )
      .then(() => {}),
    release: () => rec.publish(`${hookPrefix}/${ieee}/ota-release`, {}),
  };
}
