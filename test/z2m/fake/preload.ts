/**
 * Preloaded into a Zigbee2MQTT process (`node --import tsx/esm --import <this file>`): replaces
 * zigbee-herdsman's `Adapter.create` with the fake coordinator and connects the test hooks. Its
 * settings come from the JSON file named by FAKE_ZIGBEE_CONFIG (written by real-z2m.ts).
 */
import { readFileSync } from 'node:fs';
import { loadHerdsman } from './herdsman.ts';
import { connectHooks } from './mqtt-hooks.ts';
import { FakeZigbeeNetwork } from './network.ts';
import type { FakePreloadConfig } from './preload-config.ts';

const file = process.env.FAKE_ZIGBEE_CONFIG;
if (!file) throw new Error('FAKE_ZIGBEE_CONFIG is not set: it names the fake coordinator settings file');
const config = JSON.parse(readFileSync(file, 'utf8')) as FakePreloadConfig;
const herdsman = loadHerdsman(config.herdsmanDir);
const net = new FakeZigbeeNetwork({ zh: herdsman, ...config.network });
herdsman.adapter.Adapter.create = async (networkOptions) => net.createAdapter(networkOptions as never);
await connectHooks(net, config.mqttUrl, config.hookPrefix);
