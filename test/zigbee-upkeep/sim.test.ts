/**
 * Firmware updates, groups, bindings and the network map in `sim` mode: the Zigbee2MQTT driver on
 * the simulated Zigbee2MQTT, which answers the same bridge requests as real Zigbee2MQTT
 * (test/z2m/fidelity.test.ts holds the two to the same answers).
 */
import { simulatedNetwork } from './backends.ts';
import { upkeepScenario } from './scenario.ts';

upkeepScenario('keeping the simulated Zigbee network healthy', simulatedNetwork);
