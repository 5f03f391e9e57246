/** A network of `n` fake Zigbee devices for the benchmarks: the fake coordinator's seven models over and over, all paired. */
import { FAKE_DEVICES } from '../test/z2m/fake/devices.ts';
import type { FakeDeviceSpec } from '../test/z2m/fake/spec.ts';

/** `n` devices with distinct IEEE and network addresses and names. */
export function manyFakeDevices(n: number): FakeDeviceSpec[] {
  return Array.from({ length: n }, (_, i) => {
    const base = FAKE_DEVICES[i % FAKE_DEVICES.length] as FakeDeviceSpec;
    return {
      ...base,
      ieee: `${base.ieee.slice(0, 14)}${(0x100 + i).toString(16).padStart(4, '0')}`,
      nwk: 0x2000 + i,
      name: `${base.name}_${i}`,
      paired: true,
    };
  });
}
