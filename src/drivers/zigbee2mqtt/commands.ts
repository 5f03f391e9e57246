/**
 * `/set` and `/get` of one device, confirmed by what Zigbee2MQTT republishes: a command waits for
 * the expected state message, for Zigbee2MQTT's failure line on bridge/logging, or for its
 * deadline, whichever comes first (the waiting itself is src/zigbee/waiters.ts).
 */
import { DeviceWaiters, type Verb } from '../../zigbee/index.ts';

/** The commands in flight to one device of a Zigbee2MQTT instance. */
export function zigbee2mqttWaiters(): DeviceWaiters {
  return new DeviceWaiters(
    (verb, waitMs) => `Zigbee2MQTT did not ${verb === 'set' ? 'confirm the new state' : 'answer'} within ${waitMs} ms`,
  );
}

/**
 * Reads Zigbee2MQTT's failure line for a command: `Publish 'set' 'state' to 'Kitchen light' failed: ...`.
 * Zigbee2MQTT 2.x puts its namespace as a prefix inside the message (`z2m: Publish ...`); 1.x has
 * a separate `namespace` field. The key named is the converter's (`state` for a `state_left` set),
 * so the failure applies to every command of that verb in flight to the device.
 */
export function parseFailure(message: string): { verb: Verb; friendly: string; reason: string } | undefined {
  const m = /^(?:[\w.-]+: )?Publish '(set|get)' '[^']*' to '(.+?)' failed: (.*)$/s.exec(message);
  if (!m) return undefined;
  return { verb: m[1] as Verb, friendly: m[2] as string, reason: m[3] as string };
}
