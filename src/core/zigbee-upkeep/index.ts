/**
 * Keeping a Zigbee network healthy: firmware updates, groups (listed as devices), bindings and
 * the network map, through the `zigbee` ability of the Zigbee drivers (docs/zigbee.md).
 */

export { BINDABLE_CLUSTERS, MAX_GROUP_ID, MAX_GROUPS, UPKEEP_SCHEMAS } from './checks.ts';
export type { Answer } from './context.ts';
export * from './contract.ts';
export { GROUP_DRIVER, GroupDriver, groupRef, splitGroupRef } from './groups.ts';
export type { MapStore, StoredMap } from './maps.ts';
export { type NetworkStatus, type ZigbeeUpkeepDeps, ZigbeeUpkeepService } from './service.ts';
export type * from './views.ts';
