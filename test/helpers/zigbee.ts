/** Helpers of the Zigbee tests. */

/**
 * The display categories the simulated network shows once it holds the first 16 fixtures of
 * src/drivers/zigbee-sim/fixtures (they cover every mapped family).
 */
export const SIM_CATEGORIES: readonly string[] = [
  'plug',
  'switch',
  'light',
  'curtain',
  'thermostat',
  'contactSensor',
  'motionSensor',
  'waterLeakDetector',
  'smokeDetector',
  'temperatureAndHumiditySensor',
  'button',
  'fanLight',
  'sensor',
];
