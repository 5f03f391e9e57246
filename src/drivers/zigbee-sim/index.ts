/**
 * The built-in simulated Zigbee network (embedded MQTT broker on loopback, simulated Zigbee2MQTT
 * instances with real device definitions) and the `sim` mode driver that runs on it.
 */
export { type Broker, type BrokerCredentials, newCredentials, startBroker } from './broker.ts';
export { loadFixtures, pickModels, type SimNetwork, type SimNetworkOptions, startSimNetwork } from './network.ts';
export { type SimDevice, type SimulatorOptions, Z2mSimulator } from './simulator.ts';
export { createSimulatedZigbee, type SimulatedZigbeeOptions } from './zigbee.ts';
