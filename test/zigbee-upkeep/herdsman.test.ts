/**
 * Firmware updates, groups, bindings and the network map in `herdsman` mode: the gateway's own
 * driver on the fake coordinator, with zigbee-herdsman's OTA session, group and binding requests
 * and ZDO table requests running for real against the fake devices.
 */
import { herdsmanOnFakeCoordinator } from './backends.ts';
import { upkeepScenario } from './scenario.ts';

upkeepScenario('keeping a Zigbee network healthy on the gateway’s own coordinator', herdsmanOnFakeCoordinator);
