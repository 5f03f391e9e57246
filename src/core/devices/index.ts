/** The device side of the core: the registry (DriverHost) and the service clients use. */
export * from './contract.ts';
export { DeviceRegistry, type LocalUpdate } from './registry.ts';
export { type CommandObserver, DeviceService, type Done, type DriverReadiness } from './service.ts';
export { mergeState } from './state.ts';
export { clearDevices } from './store.ts';
export { endpointOf, toWire } from './wire.ts';
