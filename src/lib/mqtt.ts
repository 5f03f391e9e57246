/** Small helpers for MQTT clients (mqtt.js). */
import type { MqttClient } from 'mqtt';

/** Sends small MQTT packets at once instead of waiting for Nagle's algorithm (tens of ms on loopback). */
export function noDelay(client: MqttClient): void {
  const stream = client.stream as { setNoDelay?: (v: boolean) => void } | undefined;
  stream?.setNoDelay?.(true);
}
