/**
 * The fake Zigbee network the tests use, as data. Each device is described at cluster level with
 * the Basic cluster's manufacturerName/modelId of a real product, so that Zigbee2MQTT's real
 * converters identify the real model (expectedModel). Endpoints and clusters follow what those
 * products announce (facts from their public interview reports), trimmed to what matters here.
 */
import type { FakeDeviceSpec } from './spec.ts';

const HA = 0x0104;
/** genBasic.powerSource values (ZCL). */
const MAINS = 1;
const BATTERY = 3;

const basic = (manufacturerName: string, modelId: string, powerSource: number, swBuildId: string) => ({
  manufacturerName,
  modelId,
  powerSource,
  zclVersion: 8,
  appVersion: 2,
  stackVersion: 2,
  hwVersion: 1,
  dateCode: '20240101',
  swBuildId,
});

/** Philips Hue white and colour ambiance (LCT015): on/off, level, xy/hue-sat/colour temperature. */
export const COLOUR_LIGHT: FakeDeviceSpec = {
  ieee: '0x0017880100fa4e01',
  nwk: 0x1a01,
  name: 'hue_colour_light',
  type: 'Router',
  manufacturerCode: 0x100b,
  paired: true,
  expectedModel: '9290012573A',
  ota: { imageType: 0x0103, fileVersion: 0x01000e00 },
  lqi: 230,
  endpoints: [
    {
      id: 11,
      profileId: HA,
      deviceId: 0x010d,
      inputClusters: [
        'genBasic',
        'genIdentify',
        'genGroups',
        'genScenes',
        'genOnOff',
        'genLevelCtrl',
        'lightingColorCtrl',
      ],
      outputClusters: ['genOta'],
      attributes: {
        genBasic: basic('Signify Netherlands B.V.', 'LCT015', MAINS, '1.50.2_r30933'),
        genOnOff: { onOff: 0, startUpOnOff: 1 },
        genLevelCtrl: { currentLevel: 254, startUpCurrentLevel: 254 },
        lightingColorCtrl: {
          colorMode: 2,
          enhancedColorMode: 2,
          colorCapabilities: 31,
          currentHue: 20,
          enhancedCurrentHue: 5000,
          currentSaturation: 100,
          currentX: 30000,
          currentY: 26000,
          colorTemperature: 366,
          colorTempPhysicalMin: 153,
          colorTempPhysicalMax: 500,
          startUpColorTemperature: 366,
          options: 0,
        },
      },
    },
  ],
};

/** SONOFF SNZB-04 contact sensor: an IAS zone (contact switch) on batteries; joins during the tests. */
export const CONTACT_SENSOR: FakeDeviceSpec = {
  ieee: '0x00124b00fa4e0002',
  nwk: 0x1a02,
  name: 'front_door',
  type: 'EndDevice',
  manufacturerCode: 0x1286,
  paired: false,
  expectedModel: 'SNZB-04',
  parent: '0x00124b00fa4e0006',
  lqi: 60,
  endpoints: [
    {
      id: 1,
      profileId: HA,
      deviceId: 0x0402,
      inputClusters: ['genBasic', 'genPowerCfg', 'genIdentify', 'ssIasZone'],
      outputClusters: ['genIdentify'],
      attributes: {
        genBasic: basic('SONOFF', 'SNZB-04', BATTERY, '1.0.5'),
        genPowerCfg: { batteryVoltage: 30, batteryPercentageRemaining: 200 },
        ssIasZone: { zoneState: 0, zoneType: 0x0015, zoneStatus: 0, iasCieAddr: '0x0000000000000000', zoneId: 255 },
      },
    },
  ],
};

/** Envilar 2CH-ZG-BOX-RELAY: two independent on/off channels (l1, l2). */
export const TWO_GANG_SWITCH: FakeDeviceSpec = {
  ieee: '0x00124b00fa4e0003',
  nwk: 0x1a03,
  name: 'hall_two_gang',
  type: 'Router',
  manufacturerCode: 0x1141,
  paired: true,
  expectedModel: '2CH-ZG-BOX-RELAY',
  lqi: 180,
  endpoints: [1, 2].map((id) => ({
    id,
    profileId: HA,
    deviceId: 0x0100,
    inputClusters: id === 1 ? ['genBasic', 'genIdentify', 'genGroups', 'genScenes', 'genOnOff'] : ['genOnOff'],
    outputClusters: id === 1 ? ['genOta'] : [],
    attributes: {
      ...(id === 1 ? { genBasic: basic('Envilar', '2CH-ZG-BOX-RELAY', MAINS, '1.0.1') } : {}),
      genOnOff: { onOff: 0 },
    },
  })),
};

/** IKEA TRADFRI remote control (E1524/E1810): five buttons, sends commands to the coordinator. */
export const REMOTE: FakeDeviceSpec = {
  ieee: '0x000d6ffffefa4e04',
  nwk: 0x1a04,
  name: 'living_remote',
  type: 'EndDevice',
  manufacturerCode: 0x117c,
  paired: true,
  expectedModel: 'E1524/E1810',
  ota: { imageType: 0x11c1, fileVersion: 0x23080000 },
  parent: '0x00124b00fa4e0003',
  lqi: 90,
  endpoints: [
    {
      id: 1,
      profileId: HA,
      deviceId: 0x0820,
      inputClusters: ['genBasic', 'genPowerCfg', 'genIdentify', 'genAlarms', 'genPollCtrl', 'touchlink'],
      outputClusters: ['genIdentify', 'genGroups', 'genOnOff', 'genLevelCtrl', 'genOta', 'touchlink'],
      attributes: {
        genBasic: basic('IKEA of Sweden', 'TRADFRI remote control', BATTERY, '2.3.080'),
        genPowerCfg: { batteryVoltage: 30, batteryPercentageRemaining: 174 },
        genPollCtrl: { checkinInterval: 172800, longPollInterval: 4800, shortPollInterval: 2, fastPollTimeout: 40 },
      },
    },
  ],
};

/** Innr SP 120 smart plug with power metering; joins during the tests. */
export const METERING_PLUG: FakeDeviceSpec = {
  ieee: '0x00158d00fa4e0005',
  nwk: 0x1a05,
  name: 'kettle_plug',
  type: 'Router',
  manufacturerCode: 0x1166,
  paired: false,
  expectedModel: 'SP 120',
  parent: '0x0017880100fa4e01',
  lqi: 200,
  endpoints: [
    {
      id: 1,
      profileId: HA,
      deviceId: 0x0051,
      inputClusters: [
        'genBasic',
        'genIdentify',
        'genGroups',
        'genScenes',
        'genOnOff',
        'seMetering',
        'haElectricalMeasurement',
      ],
      outputClusters: ['genOta'],
      attributes: {
        genBasic: basic('innr', 'SP 120', MAINS, '2.0'),
        genOnOff: { onOff: 1 },
        seMetering: { currentSummDelivered: 12345, multiplier: 1, divisor: 100, unitOfMeasure: 0 },
        haElectricalMeasurement: {
          rmsVoltage: 230,
          rmsCurrent: 120,
          activePower: 25,
          acVoltageMultiplier: 1,
          acVoltageDivisor: 1,
          acCurrentMultiplier: 1,
          acCurrentDivisor: 1000,
          acPowerMultiplier: 1,
          acPowerDivisor: 1,
        },
      },
    },
  ],
};

/** Zen Within Zen-01 thermostat: heating/cooling setpoints, system mode, fan mode. */
export const THERMOSTAT: FakeDeviceSpec = {
  ieee: '0x00124b00fa4e0006',
  nwk: 0x1a06,
  name: 'office_thermostat',
  type: 'Router',
  manufacturerCode: 0x1158,
  paired: true,
  expectedModel: 'Zen-01-W',
  lqi: 120,
  endpoints: [
    {
      id: 3,
      profileId: HA,
      deviceId: 0x0301,
      inputClusters: [
        'genBasic',
        'genPowerCfg',
        'genIdentify',
        'genTime',
        'hvacThermostat',
        'hvacFanCtrl',
        'hvacUserInterfaceCfg',
      ],
      outputClusters: ['genTime', 'genOta'],
      attributes: {
        genBasic: basic('Zen Within', 'Zen-01', MAINS, '1.0.9'),
        genPowerCfg: { batteryVoltage: 60 },
        hvacThermostat: {
          localTemp: 2150,
          occupiedHeatingSetpoint: 2000,
          occupiedCoolingSetpoint: 2600,
          localTemperatureCalibration: 0,
          minHeatSetpointLimit: 1000,
          maxHeatSetpointLimit: 3000,
          minCoolSetpointLimit: 1000,
          maxCoolSetpointLimit: 3100,
          controlSequenceOfOperation: 4,
          systemMode: 4,
          runningState: 0,
          occupancy: 1,
        },
        hvacFanCtrl: { fanMode: 5, fanModeSequence: 2 },
        hvacUserInterfaceCfg: { keypadLockout: 0, tempDisplayMode: 0 },
      },
    },
  ],
};

/** IKEA FYRTUR roller blind (E1757): a cover that moves to a lift percentage. */
export const COVER: FakeDeviceSpec = {
  ieee: '0x000d6ffffefa4e07',
  nwk: 0x1a07,
  name: 'bedroom_blind',
  type: 'EndDevice',
  manufacturerCode: 0x117c,
  paired: true,
  expectedModel: 'E1757',
  parent: '0x0017880100fa4e01',
  lqi: 150,
  endpoints: [
    {
      id: 1,
      profileId: HA,
      deviceId: 0x0202,
      inputClusters: [
        'genBasic',
        'genPowerCfg',
        'genIdentify',
        'genGroups',
        'genScenes',
        'genPollCtrl',
        'closuresWindowCovering',
        'touchlink',
      ],
      outputClusters: ['genOta', 'touchlink'],
      attributes: {
        genBasic: basic('IKEA of Sweden', 'FYRTUR block-out roller blind', BATTERY, '2.3.088'),
        genPowerCfg: { batteryPercentageRemaining: 160 },
        genPollCtrl: { checkinInterval: 172800, longPollInterval: 4800, shortPollInterval: 2, fastPollTimeout: 40 },
        closuresWindowCovering: { windowCoveringType: 0, currentPositionLiftPercentage: 0, configStatus: 3 },
      },
    },
  ],
};

/**
 * IKEA TRADFRI bulb E27 WW 806lm (LED1836G9): a dimmable warm-white light (on/off, level), a
 * second light for groups; not in FAKE_DEVICES (the tests of groups add it).
 */
export const DIMMABLE_LIGHT: FakeDeviceSpec = {
  ieee: '0x000d6ffffefa4e08',
  nwk: 0x1a08,
  name: 'hall_bulb',
  type: 'Router',
  manufacturerCode: 0x117c,
  paired: true,
  expectedModel: 'LED1836G9',
  ota: { imageType: 0x2101, fileVersion: 0x23086631 },
  parent: '0x00124b00fa4e0003',
  lqi: 170,
  endpoints: [
    {
      id: 1,
      profileId: HA,
      deviceId: 0x0101,
      inputClusters: ['genBasic', 'genIdentify', 'genGroups', 'genScenes', 'genOnOff', 'genLevelCtrl', 'touchlink'],
      outputClusters: ['genOta'],
      attributes: {
        genBasic: basic('IKEA of Sweden', 'TRADFRI bulb E27 WW 806lm', MAINS, '2.3.086'),
        genOnOff: { onOff: 0, startUpOnOff: 1 },
        genLevelCtrl: { currentLevel: 200, startUpCurrentLevel: 255 },
      },
    },
  ],
};

/** Every fake device the tests use: five paired at start, two that join while joining is open. */
export const FAKE_DEVICES: readonly FakeDeviceSpec[] = [
  COLOUR_LIGHT,
  TWO_GANG_SWITCH,
  REMOTE,
  THERMOSTAT,
  COVER,
  CONTACT_SENSOR,
  METERING_PLUG,
];
