/**
 * The matter.js side of a planned endpoint: its endpoint type (the Matter device type with the
 * server behaviors it needs) and its first attribute values. Commands of controllers are caught
 * in subclasses of matter.js's servers and handed to `onIntent` (the bridge sends them through D4);
 * the servers never change their own state on a command: the device's confirmed report does.
 */
import { type ActionContext, Endpoint, type MutableEndpoint } from '@matter/main';
import { AirQualityServer } from '@matter/main/behaviors/air-quality';
import { BooleanStateServer } from '@matter/main/behaviors/boolean-state';
import { BridgedDeviceBasicInformationServer } from '@matter/main/behaviors/bridged-device-basic-information';
import { CarbonDioxideConcentrationMeasurementServer } from '@matter/main/behaviors/carbon-dioxide-concentration-measurement';
import { ColorControlServer } from '@matter/main/behaviors/color-control';
import { FanControlServer } from '@matter/main/behaviors/fan-control';
import { IdentifyServer } from '@matter/main/behaviors/identify';
import { IlluminanceMeasurementServer } from '@matter/main/behaviors/illuminance-measurement';
import { OccupancySensingServer } from '@matter/main/behaviors/occupancy-sensing';
import { OnOffServer } from '@matter/main/behaviors/on-off';
import { Pm25ConcentrationMeasurementServer } from '@matter/main/behaviors/pm25-concentration-measurement';
import { PowerSourceServer } from '@matter/main/behaviors/power-source';
import { PressureMeasurementServer } from '@matter/main/behaviors/pressure-measurement';
import { RelativeHumidityMeasurementServer } from '@matter/main/behaviors/relative-humidity-measurement';
import { SmokeCoAlarmServer } from '@matter/main/behaviors/smoke-co-alarm';
import { SwitchServer } from '@matter/main/behaviors/switch';
import { TemperatureMeasurementServer } from '@matter/main/behaviors/temperature-measurement';
import { ThermostatServer } from '@matter/main/behaviors/thermostat';
import { WindowCoveringServer } from '@matter/main/behaviors/window-covering';
import { AirQualitySensorDevice } from '@matter/main/devices/air-quality-sensor';
import { ColorTemperatureLightDevice } from '@matter/main/devices/color-temperature-light';
import { ContactSensorDevice } from '@matter/main/devices/contact-sensor';
import { DimmableLightDevice } from '@matter/main/devices/dimmable-light';
import { ExtendedColorLightDevice } from '@matter/main/devices/extended-color-light';
import { FanDevice } from '@matter/main/devices/fan';
import { GenericSwitchDevice } from '@matter/main/devices/generic-switch';
import { HumiditySensorDevice } from '@matter/main/devices/humidity-sensor';
import { LightSensorDevice } from '@matter/main/devices/light-sensor';
import { OccupancySensorDevice } from '@matter/main/devices/occupancy-sensor';
import { OnOffLightDevice } from '@matter/main/devices/on-off-light';
import { OnOffPlugInUnitDevice } from '@matter/main/devices/on-off-plug-in-unit';
import { PressureSensorDevice } from '@matter/main/devices/pressure-sensor';
import { SmokeCoAlarmDevice } from '@matter/main/devices/smoke-co-alarm';
import { TemperatureSensorDevice } from '@matter/main/devices/temperature-sensor';
import { ThermostatDevice } from '@matter/main/devices/thermostat';
import { WaterLeakDetectorDevice } from '@matter/main/devices/water-leak-detector';
import { WindowCoveringDevice } from '@matter/main/devices/window-covering';
import { BridgedNodeEndpoint } from '@matter/main/endpoints/bridged-node';
import type { Intent } from './commands.ts';
import { BUILT_TYPES, cools, type EndpointPlan } from './plan.ts';
import { MIREDS, numberRange, type Patch, toCentiCelsius, unitOf } from './values.ts';

/** A press as the catalog reports it. */
export type PressKind = 'singlePress' | 'doublePress' | 'longPress';

/**
 * A button: presses come whole from the device (a double press is one report), so the Switch
 * cluster's events are emitted as the specification orders them for that press, without
 * matter.js's raw-position timers (which would wait out real multi-press and long-press delays).
 */
export class BridgedSwitch extends SwitchServer.with(
  'MomentarySwitch',
  'MomentarySwitchRelease',
  'MomentarySwitchLongPress',
  'MomentarySwitchMultiPress',
) {
  /** Emits one whole press. */
  press(kind: PressKind) {
    const e = this.events;
    e.initialPress.emit({ newPosition: 1 }, this.context);
    if (kind === 'longPress') {
      e.longPress.emit({ newPosition: 1 }, this.context);
      e.longRelease.emit({ previousPosition: 1 }, this.context);
      return;
    }
    const count = kind === 'doublePress' ? 2 : 1;
    if (count === 2) {
      e.shortRelease.emit({ previousPosition: 1 }, this.context);
      e.initialPress.emit({ newPosition: 1 }, this.context);
      e.multiPressOngoing.emit({ newPosition: 1, currentNumberOfPressesCounted: 2 }, this.context);
    }
    e.shortRelease.emit({ previousPosition: 1 }, this.context);
    e.multiPressComplete.emit({ previousPosition: 1, totalNumberOfPressesCounted: count }, this.context);
  }
}

/** Receives a controller's command to one endpoint (by its matter.js id); throws to refuse it. */
export type IntentSink = (endpointId: string, intent: Intent) => Promise<void>;

/** What the controller shows of the bridged device (Bridged Device Basic Information). */
export interface BridgedInfo {
  nodeLabel: string;
  reachable: boolean;
  uniqueId: string;
  vendorName: string;
  productName: string;
  softwareVersionString: string;
  serialNumber: string;
}

/** The server behaviors that carry commands, made for one bridge (their intents go to `sink`). */
export function commandServers(sink: IntentSink) {
  const send = (endpoint: { id: string }, intent: Intent) => sink(endpoint.id, intent);

  class BridgedOnOff extends OnOffServer.with('Lighting') {
    override async on() {
      await send(this.endpoint, { kind: 'onOff', to: 'on' });
    }
    override async off() {
      await send(this.endpoint, { kind: 'onOff', to: 'off' });
    }
    override async toggle() {
      await send(this.endpoint, { kind: 'onOff', to: 'toggle' });
    }
    override async offWithEffect() {
      await send(this.endpoint, { kind: 'onOff', to: 'off' });
    }
    override async onWithRecallGlobalScene() {
      await send(this.endpoint, { kind: 'onOff', to: 'on' });
    }
  }

  /**
   * Identify on a device that declares `identify`: matter.js keeps its identifyTime countdown (what
   * the controller reads), and the device is told to identify itself for as long (0: stop) through
   * D4, as any client would.
   */
  class BridgedIdentify extends IdentifyServer {
    override async identify(request: { identifyTime: number }) {
      await super.identify(request);
      await send(this.endpoint, { kind: 'identify', seconds: request.identifyTime });
    }
  }

  // Move goes all the way in one direction; Stop has nothing to stop, as nothing moves here.
  const levelOf = (moveMode: number) => (moveMode === 0 ? 254 : 1);
  const delta = (stepMode: number, stepSize: number) => (stepMode === 0 ? stepSize : -stepSize);

  class BridgedLevel extends DimmableLightDevice.requirements.LevelControlServer {
    override async moveToLevel({ level }: { level: number }) {
      await send(this.endpoint, { kind: 'level', level, withOnOff: false });
    }
    override async moveToLevelWithOnOff({ level }: { level: number }) {
      await send(this.endpoint, { kind: 'level', level, withOnOff: true });
    }
    override async move({ moveMode }: { moveMode: number }) {
      await send(this.endpoint, { kind: 'level', level: levelOf(moveMode), withOnOff: false });
    }
    override async moveWithOnOff({ moveMode }: { moveMode: number }) {
      await send(this.endpoint, { kind: 'level', level: levelOf(moveMode), withOnOff: true });
    }
    override async step({ stepMode, stepSize }: { stepMode: number; stepSize: number }) {
      await send(this.endpoint, { kind: 'levelStep', delta: delta(stepMode, stepSize), withOnOff: false });
    }
    override async stepWithOnOff({ stepMode, stepSize }: { stepMode: number; stepSize: number }) {
      await send(this.endpoint, { kind: 'levelStep', delta: delta(stepMode, stepSize), withOnOff: true });
    }
    override stop() {}
    override stopWithOnOff() {}
    // The level follows the device's reports, not the on/off attribute (matter.js would dim to the minimum on off).
    override handleOnOffChange() {}
  }

  class BridgedColorTemperature extends ColorControlServer.with('ColorTemperature') {
    override async moveToColorTemperature({ colorTemperatureMireds }: { colorTemperatureMireds: number }) {
      await send(this.endpoint, { kind: 'mireds', mireds: colorTemperatureMireds });
    }
  }

  // A cover with a position: commands become the open percentage; the position moves when the device reports it.
  class BridgedPositionCover extends WindowCoveringServer.with('Lift', 'PositionAwareLift') {
    override async upOrOpen() {
      await send(this.endpoint, { kind: 'cover', action: 'open' });
    }
    override async downOrClose() {
      await send(this.endpoint, { kind: 'cover', action: 'close' });
    }
    override async stopMotion() {
      await send(this.endpoint, { kind: 'cover', action: 'stop' });
    }
    override async goToLiftPercentage({ liftPercent100thsValue }: { liftPercent100thsValue: number }) {
      await send(this.endpoint, { kind: 'coverTo', closed100ths: liftPercent100thsValue });
    }
  }

  // A cover that only has a motor: open, close, stop.
  class BridgedMotorCover extends WindowCoveringServer.with('Lift') {
    override async upOrOpen() {
      await send(this.endpoint, { kind: 'cover', action: 'open' });
    }
    override async downOrClose() {
      await send(this.endpoint, { kind: 'cover', action: 'close' });
    }
    override async stopMotion() {
      await send(this.endpoint, { kind: 'cover', action: 'stop' });
    }
  }

  /**
   * A heating thermostat. Controllers change the setpoint and the mode by writing attributes, not
   * by commands: a write from a controller is sent through D4 after matter.js took it; when the
   * gateway refuses it, the bridge sets the device's stored values back (see MatterBridge.command).
   */
  class BridgedHeating extends ThermostatServer.with('Heating') {
    override async initialize() {
      await super.initialize();
      this.reactTo(this.events.occupiedHeatingSetpoint$Changed, this.setpointWritten);
      this.reactTo(this.events.systemMode$Changed, this.modeWritten);
    }
    override async setpointRaiseLower({ amount }: { amount: number }) {
      // amount is in tenths of a degree.
      await send(this.endpoint, { kind: 'setpoint', centiCelsius: this.state.occupiedHeatingSetpoint + amount * 10 });
    }
    setpointWritten(value: number, _old: number, context?: ActionContext) {
      if (!context || context.offline) return;
      void send(this.endpoint, { kind: 'setpoint', centiCelsius: value }).catch(() => {});
    }
    modeWritten(value: number, _old: number, context?: ActionContext) {
      if (!context || context.offline) return;
      void send(this.endpoint, { kind: 'systemMode', mode: value }).catch(() => {});
    }
  }

  /** An air conditioner: the heating thermostat's writes, and the cooling setpoint's too. */
  class BridgedHeatingCooling extends ThermostatServer.with('Heating', 'Cooling') {
    override async initialize() {
      await super.initialize();
      this.reactTo(this.events.occupiedHeatingSetpoint$Changed, this.setpointWritten);
      this.reactTo(this.events.occupiedCoolingSetpoint$Changed, this.setpointWritten);
      this.reactTo(this.events.systemMode$Changed, this.modeWritten);
    }
    override async setpointRaiseLower({ amount }: { amount: number }) {
      await send(this.endpoint, { kind: 'setpoint', centiCelsius: this.state.occupiedCoolingSetpoint + amount * 10 });
    }
    setpointWritten(value: number, _old: number, context?: ActionContext) {
      if (!context || context.offline) return;
      void send(this.endpoint, { kind: 'setpoint', centiCelsius: value }).catch(() => {});
    }
    modeWritten(value: number, _old: number, context?: ActionContext) {
      if (!context || context.offline) return;
      void send(this.endpoint, { kind: 'systemMode', mode: value }).catch(() => {});
    }
  }

  /** A colour light: hue and saturation, x/y and colour temperature, all sent as the catalog's RGB or temperature. */
  class BridgedColor extends ColorControlServer.with('HueSaturation', 'Xy', 'ColorTemperature') {
    override async moveToColorTemperature({ colorTemperatureMireds }: { colorTemperatureMireds: number }) {
      await send(this.endpoint, { kind: 'mireds', mireds: colorTemperatureMireds });
    }
    override async moveToHue({ hue }: { hue: number }) {
      await send(this.endpoint, { kind: 'hueSaturation', hue });
    }
    override async moveToSaturation({ saturation }: { saturation: number }) {
      await send(this.endpoint, { kind: 'hueSaturation', saturation });
    }
    override async moveToHueAndSaturation({ hue, saturation }: { hue: number; saturation: number }) {
      await send(this.endpoint, { kind: 'hueSaturation', hue, saturation });
    }
    override async moveToColor({ colorX, colorY }: { colorX: number; colorY: number }) {
      await send(this.endpoint, { kind: 'xy', x: colorX, y: colorY });
    }
  }

  /** A fan: controllers write its mode or its percent; both go through D4 like the thermostat's writes. */
  class BridgedFan extends FanControlServer {
    override initialize() {
      super.initialize();
      this.reactTo(this.events.fanMode$Changed, this.modeWritten);
      this.reactTo(this.events.percentSetting$Changed, this.percentWritten);
    }
    modeWritten(value: number, _old: number, context?: ActionContext) {
      if (!context || context.offline) return;
      void send(this.endpoint, { kind: 'fanMode', mode: value }).catch(() => {});
    }
    percentWritten(value: number | null, _old: number | null, context?: ActionContext) {
      if (!context || context.offline || value === null) return;
      void send(this.endpoint, { kind: 'fanPercent', percent: value }).catch(() => {});
    }
  }

  return {
    BridgedIdentify,
    BridgedOnOff,
    BridgedLevel,
    BridgedColorTemperature,
    BridgedPositionCover,
    BridgedMotorCover,
    BridgedHeating,
    BridgedFan,
    BridgedColor,
    BridgedHeatingCooling,
  };
}

export type CommandServers = ReturnType<typeof commandServers>;

/** The endpoint type of a planned endpoint (undefined: a device type this bridge does not build yet). */
function typeOf(ep: EndpointPlan, s: CommandServers): MutableEndpoint | undefined {
  switch (ep.deviceType) {
    case 'OnOffLight':
      return OnOffLightDevice.with(s.BridgedOnOff);
    case 'DimmableLight':
      return DimmableLightDevice.with(s.BridgedOnOff, s.BridgedLevel);
    case 'ExtendedColorLight':
      return ExtendedColorLightDevice.with(s.BridgedOnOff, s.BridgedLevel, s.BridgedColor);
    case 'ColorTemperatureLight':
      return ep.features.colorTemperature
        ? ColorTemperatureLightDevice.with(s.BridgedOnOff, s.BridgedLevel, s.BridgedColorTemperature)
        : DimmableLightDevice.with(s.BridgedOnOff, s.BridgedLevel);
    case 'OnOffPlugInUnit':
      return OnOffPlugInUnitDevice.with(s.BridgedOnOff);
    case 'WindowCovering':
      return WindowCoveringDevice.with(ep.features.liftPosition ? s.BridgedPositionCover : s.BridgedMotorCover);
    case 'SmokeCoAlarm':
      return SmokeCoAlarmDevice.with(SmokeCoAlarmServer.with('SmokeAlarm'));
    case 'Thermostat':
      return ThermostatDevice.with(cools(ep) ? s.BridgedHeatingCooling : s.BridgedHeating);
    case 'GenericSwitch':
      return GenericSwitchDevice.with(BridgedSwitch);
    case 'Fan':
      return FanDevice.with(s.BridgedFan);
    case 'AirQualitySensor': {
      // The VOC index has no Matter concentration (it is an index, not ppb): only CO2 and PM2.5 are measured.
      const measures = [
        ...(ep.features.co2 ? [CarbonDioxideConcentrationMeasurementServer.with('NumericMeasurement')] : []),
        ...(ep.features.pm25 ? [Pm25ConcentrationMeasurementServer.with('NumericMeasurement')] : []),
      ];
      return AirQualitySensorDevice.with(
        AirQualityServer.with('Fair', 'Moderate', 'VeryPoor', 'ExtremelyPoor'),
        ...measures,
      );
    }
    case 'ContactSensor':
      return ContactSensorDevice.with(BooleanStateServer);
    case 'WaterLeakDetector':
      return WaterLeakDetectorDevice.with(BooleanStateServer);
    case 'OccupancySensor':
      return OccupancySensorDevice.with(OccupancySensingServer.with('PassiveInfrared'));
    case 'TemperatureSensor':
      return TemperatureSensorDevice.with(TemperatureMeasurementServer);
    case 'HumiditySensor':
      return HumiditySensorDevice.with(RelativeHumidityMeasurementServer);
    case 'PressureSensor':
      return PressureSensorDevice.with(PressureMeasurementServer);
    case 'LightSensor':
      return LightSensorDevice.with(IlluminanceMeasurementServer);
    default:
      return undefined;
  }
}

/** Values every endpoint of a kind needs before the device's first report (Matter requires them). */
function firstValues(ep: EndpointPlan): Patch {
  switch (ep.deviceType) {
    case 'OnOffLight':
    case 'OnOffPlugInUnit':
      return { onOff: { onOff: false } };
    case 'DimmableLight':
      return { onOff: { onOff: false }, levelControl: { currentLevel: 254, minLevel: 1, maxLevel: 254 } };
    case 'ColorTemperatureLight':
    case 'ExtendedColorLight': {
      const base: Patch = {
        onOff: { onOff: false },
        levelControl: { currentLevel: 254, minLevel: 1, maxLevel: 254 },
      };
      if (ep.deviceType === 'ExtendedColorLight')
        return {
          ...base,
          colorControl: {
            currentHue: 0,
            currentSaturation: 0,
            currentX: 24939,
            currentY: 24701,
            colorTemperatureMireds: MIREDS.min,
            colorTempPhysicalMinMireds: MIREDS.min,
            colorTempPhysicalMaxMireds: MIREDS.max,
            coupleColorTempToLevelMinMireds: MIREDS.min,
            startUpColorTemperatureMireds: null,
            colorMode: 1,
            enhancedColorMode: 1,
          },
        };
      if (!ep.features.colorTemperature) return base;
      return {
        ...base,
        colorControl: {
          colorTemperatureMireds: MIREDS.min,
          colorTempPhysicalMinMireds: MIREDS.min,
          colorTempPhysicalMaxMireds: MIREDS.max,
          coupleColorTempToLevelMinMireds: MIREDS.min,
          startUpColorTemperatureMireds: null,
          colorMode: 2,
          enhancedColorMode: 2,
        },
      };
    }
    case 'WindowCovering':
      return ep.features.liftPosition
        ? {
            windowCovering: {
              type: 0,
              endProductType: 0,
              currentPositionLiftPercent100ths: 0,
              targetPositionLiftPercent100ths: 0,
            },
          }
        : { windowCovering: { type: 0, endProductType: 0 } };
    case 'SmokeCoAlarm':
      return { smokeCoAlarm: { smokeState: 0, expressedState: 0, batteryAlert: 0 } };
    case 'Thermostat': {
      const sp = ep.features.setpoint?.[0];
      const range = sp ? numberRange(sp, 'targetSetpoint') : {};
      const min = toCentiCelsius(range.min ?? 5, unitOf(sp));
      const max = toCentiCelsius(range.max ?? 30, unitOf(sp));
      const heating = {
        localTemperature: null,
        systemMode: 4,
        absMinHeatSetpointLimit: min,
        minHeatSetpointLimit: min,
        absMaxHeatSetpointLimit: max,
        maxHeatSetpointLimit: max,
        occupiedHeatingSetpoint: Math.min(max, Math.max(min, 2000)),
      };
      if (!cools(ep)) return { thermostat: { ...heating, controlSequenceOfOperation: 2 } };
      // Cooling and heating (Matter's controlSequenceOfOperation 4): one setpoint serves both.
      return {
        thermostat: {
          ...heating,
          controlSequenceOfOperation: 4,
          systemMode: 3,
          absMinCoolSetpointLimit: min,
          minCoolSetpointLimit: min,
          absMaxCoolSetpointLimit: max,
          maxCoolSetpointLimit: max,
          occupiedCoolingSetpoint: Math.min(max, Math.max(min, 2400)),
        },
      };
    }
    case 'GenericSwitch':
      return { switch: { numberOfPositions: 2, currentPosition: 0, multiPressMax: 2 } };
    case 'AirQualitySensor': {
      const out: Patch = { airQuality: { airQuality: 0 } };
      const concentration = (unit: number) => ({
        measuredValue: null,
        minMeasuredValue: null,
        maxMeasuredValue: null,
        measurementUnit: unit,
        measurementMedium: 0,
      });
      // Units of the Matter concentration clusters: 0 ppm, 4 µg/m³.
      if (ep.features.co2) out.carbonDioxideConcentrationMeasurement = concentration(0);
      if (ep.features.pm25) out.pm25ConcentrationMeasurement = concentration(4);
      return out;
    }
    case 'Fan':
      // Off, Low, Medium, High with the `fanLevel` mode; else Off and High (on) only.
      return {
        fanControl: { fanMode: 0, fanModeSequence: ep.features.fanSpeed ? 0 : 5, percentSetting: 0, percentCurrent: 0 },
      };
    case 'ContactSensor':
    case 'WaterLeakDetector':
      return { booleanState: { stateValue: false } };
    case 'OccupancySensor':
      return {
        occupancySensing: {
          occupancy: { occupied: false },
          occupancySensorType: 0,
          occupancySensorTypeBitmap: { pir: true },
        },
      };
    case 'TemperatureSensor':
      return { temperatureMeasurement: { measuredValue: null, minMeasuredValue: -4000, maxMeasuredValue: 12500 } };
    case 'HumiditySensor':
      return { relativeHumidityMeasurement: { measuredValue: null, minMeasuredValue: 0, maxMeasuredValue: 10000 } };
    case 'PressureSensor':
      return { pressureMeasurement: { measuredValue: null, minMeasuredValue: 300, maxMeasuredValue: 1100 } };
    case 'LightSensor':
      return { illuminanceMeasurement: { measuredValue: null, minMeasuredValue: 1, maxMeasuredValue: 0xfffe } };
    default:
      return {};
  }
}

/** Merges patches behavior by behavior (later values win). */
export function mergePatch(...patches: Patch[]): Patch {
  const out: Patch = {};
  for (const p of patches) for (const [b, v] of Object.entries(p)) out[b] = { ...(out[b] ?? {}), ...v };
  return out;
}

/** Colour attributes a light built without the colour features (a white-spectrum light) must not be given. */
const COLOUR_ONLY = new Set(['currentHue', 'currentSaturation', 'currentX', 'currentY']);

/** The values of a patch the built endpoint has (Matter refuses attributes of features it lacks). */
export function builtPatch(ep: EndpointPlan, patch: Patch): Patch {
  if (patch.totalVolatileOrganicCompoundsConcentrationMeasurement) {
    const { totalVolatileOrganicCompoundsConcentrationMeasurement: _, ...rest } = patch;
    return builtPatch(ep, rest);
  }
  const cc = patch.colorControl;
  if (!cc || ep.deviceType === 'ExtendedColorLight') return patch;
  const { colorControl: _, ...rest } = patch;
  if (!ep.features.colorTemperature) return rest;
  const kept = Object.fromEntries(
    Object.entries(cc).filter(([k, v]) => !COLOUR_ONLY.has(k) && !(k.endsWith('olorMode') && v !== 2)),
  );
  return Object.keys(kept).length > 0 ? { ...rest, colorControl: kept } : rest;
}

/** The planned endpoints this bridge can build (the others are left out). */
export function buildable(eps: readonly EndpointPlan[]): EndpointPlan[] {
  return eps.filter((ep) => BUILT_TYPES.has(ep.deviceType));
}

/** A part of a bridged device: its matter.js id, its plan, its first values. */
export interface Part {
  id: string;
  plan: EndpointPlan;
  values: Patch;
}

const BATTERY_STATE = {
  powerSource: {
    status: 1,
    order: 0,
    description: 'Battery',
    batChargeLevel: 0,
    batReplacementNeeded: false,
    batReplaceability: 0,
    batPercentRemaining: null,
  },
};

/**
 * The endpoint of one bridged device: its only function's endpoint carrying the Bridged Device
 * Basic Information, or a Bridged Node endpoint holding one child per function.
 */
export function bridgedEndpoint(
  id: string,
  info: BridgedInfo,
  parts: readonly Part[],
  servers: CommandServers,
  battery: Patch | undefined,
  identify = false,
): Endpoint | undefined {
  const typed = parts.flatMap((p) => {
    const base = typeOf(p.plan, servers);
    // Identify on any of its endpoints reaches the device (it has one identify, not one per function).
    const type = base && identify ? base.with(servers.BridgedIdentify) : base;
    return type ? [{ ...p, type }] : [];
  });
  if (typed.length === 0) return undefined;
  const power = battery ? [PowerSourceServer.with('Battery')] : [];
  const powerValues = battery ? mergePatch(BATTERY_STATE, battery) : {};
  if (typed.length === 1) {
    const only = typed[0] as (typeof typed)[number];
    const type = only.type.with(BridgedDeviceBasicInformationServer, ...power);
    return new Endpoint(type, {
      id,
      bridgedDeviceBasicInformation: info,
      ...mergePatch(firstValues(only.plan), only.values, powerValues),
    } as never);
  }
  const children = typed.map(
    (p) => new Endpoint(p.type, { id: p.id, ...mergePatch(firstValues(p.plan), p.values) } as never),
  );
  return new Endpoint(BridgedNodeEndpoint.with(BridgedDeviceBasicInformationServer, ...power), {
    id,
    bridgedDeviceBasicInformation: info,
    ...powerValues,
    parts: children,
  } as never);
}
