/**
 * How a fake Zigbee device is described: at cluster level, as plain data (JSON-safe), so that the
 * same description can be written into a file for a Zigbee2MQTT process and used in-process.
 */

/** Attribute values of one cluster, by the attribute names zigbee-herdsman uses (e.g. `onOff`, `currentLevel`). */
export type AttributeValues = Record<string, number | string | boolean>;

export interface FakeEndpointSpec {
  /** Endpoint number (1-240). */
  id: number;
  /** Application profile (0x0104 Home Automation, 0xc05e ZLL). */
  profileId: number;
  /** Device id of the profile (e.g. 0x010d extended colour light). */
  deviceId: number;
  /** Server clusters, by herdsman cluster name, or by number for clusters herdsman does not name. */
  inputClusters: (string | number)[];
  /** Client clusters (what the device sends commands on). */
  outputClusters: (string | number)[];
  /** Current attribute values of the server clusters. */
  attributes?: Record<string, AttributeValues>;
}

export interface FakeDeviceSpec {
  /** IEEE address as herdsman writes it: `0x` and 16 lower-case hex digits. */
  ieee: string;
  /** Network (short) address, 1-0xfff7. */
  nwk: number;
  /** A name for humans (and the friendly name Zigbee2MQTT is given for devices paired at start). */
  name: string;
  /** Routers are mains powered and answer at once; end devices sleep and report on their own. */
  type: 'Router' | 'EndDevice';
  /** Manufacturer code of the node descriptor. */
  manufacturerCode: number;
  /** In the network (and in herdsman's database) at start; otherwise it joins when joining is open. */
  paired: boolean;
  endpoints: FakeEndpointSpec[];
  /** The model Zigbee2MQTT's converters identify (definition.model), for tests to assert on. */
  expectedModel: string;
  /**
   * Its firmware as its OTA upgrade client reports it (models that take updates): the image type
   * and the file version it runs. Absent: the device has no OTA client.
   */
  ota?: { imageType: number; fileVersion: number };
  /** The router (or the coordinator, when absent) it joined through: its parent in the network map. */
  parent?: string;
  /** Link quality (0-255) of its link to its parent, as both ends measure it; 200 when absent. */
  lqi?: number;
}

/** The coordinator's own address, as herdsman reads it from the adapter. */
export const FAKE_COORDINATOR_IEEE = '0x00124b00fa4e0001';
