/**
 * Firmware updates, groups, bindings and the network map in `z2m` mode, against the real
 * Zigbee2MQTT 2.14.1 with the fake coordinator (test/z2m/): the gateway's core drives Zigbee2MQTT's
 * bridge requests, and what Zigbee2MQTT does with the fake devices (a real OTA exchange, group
 * frames, bindings, neighbour and routing tables) comes back as a client of the gateway sees it.
 */
import { realZigbee2mqtt } from './backends.ts';
import { upkeepScenario } from './scenario.ts';

upkeepScenario('keeping a Zigbee network healthy through the real Zigbee2MQTT', realZigbee2mqtt);
