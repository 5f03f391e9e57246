/** Display categories of spec 2.5 (all from gateway version 2.1.0). */

export const displayCategories: readonly string[] = Object.freeze([
  'plug',
  'switch',
  'light',
  'curtain',
  'contactSensor',
  'motionSensor',
  'temperatureSensor',
  'humiditySensor',
  'temperatureAndHumiditySensor',
  'waterLeakDetector',
  'smokeDetector',
  'button',
  'camera',
  'sensor',
  'fanLight',
  'airConditioner',
  'fan',
  'thermostat',
]);

const known = new Set(displayCategories);

/** True for one of the 18 display categories (exact spelling). */
export function isDisplayCategory(s: unknown): boolean {
  return typeof s === 'string' && known.has(s);
}
