/**
 * Zigbee's own vocabulary, shared by every Zigbee driver: the exposes of device definitions and
 * their mapping to the API's capabilities (both directions), colour conversion, and what every
 * Zigbee driver does the same way (announcing devices, confirming commands, reading state back,
 * groups and their state, the network map's form, firmware indexes).
 */

export { hsToRgb, type Rgb, rgbToHs, rgbToXy, xyToRgb } from '../lib/color.ts';
export { announceZigbeeDevice, LeftOutLog, reportedState, type ZigbeeDeviceInfo } from './announce.ts';
export { ACCESS_GET, ACCESS_SET, ACCESS_STATE, type Expose, type ModelFixture } from './exposes.ts';
export { type GroupMemberExposes, groupExposes, groupMapping, groupState, memberExposes } from './groups.ts';
export {
  type Binding,
  channelName,
  type DeviceMapping,
  type Expectation,
  exposeLeaves,
  mapExposes,
  meets,
  numberChannels,
  parseAction,
  planGet,
  planSet,
  propertiesOf,
  type SetPlan,
  toApiState,
} from './mapping.ts';
export { mappingTable } from './mapping-table.ts';
export { fromZigbee2mqttRaw, type LqiNeighbour, linksOf, type RoutingEntry } from './network-map.ts';
export { type IndexOutcome, type OtaIndexEntry, otaHeader, resolveOtaIndex } from './ota-index.ts';
export { ReadBackQueue, type ReadRequest } from './read-back.ts';
export { type Confirmation, DeviceWaiters, type TimeoutWording, type Verb } from './waiters.ts';
