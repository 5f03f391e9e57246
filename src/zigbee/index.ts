/**
 * Zigbee's own vocabulary, shared by every Zigbee driver: the exposes of device definitions and
 * their mapping to the API's capabilities (both directions), and colour conversion.
 */
export { hsToRgb, type Rgb, rgbToHs, rgbToXy, xyToRgb } from './color.ts';
export { ACCESS_GET, ACCESS_SET, ACCESS_STATE, type Expose, type ModelFixture } from './exposes.ts';
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
