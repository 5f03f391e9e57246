/**
 * The endpoints and clusters of a simulated device, made from its model's exposes (the captured
 * definitions hold no clusters): each exposed feature is served by the ZCL cluster that carries it
 * (a light's state by On/Off, its brightness by Level Control, its colour by Color Control; a
 * temperature by Temperature Measurement...), a button's actions are commands it sends (client
 * On/Off, Level Control, Scenes), and what takes commands takes group membership (Groups, Scenes).
 * Endpoints are numbered as the API numbers channels (`l1` -> 1; `left`, `right` -> 1, 2), one
 * endpoint for a model that names none. Enough for groups and bindings to behave as on a real
 * network: what can be grouped, and which clusters bind.
 */
import { exposeLeaves, type ModelFixture, numberChannels } from '../../zigbee/index.ts';

export interface SimEndpoint {
  id: number;
  /** The endpoint's name in the exposes (`l1`), on a model that names its endpoints. */
  name?: string;
  input: string[];
  output: string[];
}

/** The server cluster of a feature, by the specific expose it sits in. */
const BY_PARENT: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  light: {
    state: 'genOnOff',
    brightness: 'genLevelCtrl',
    color_temp: 'lightingColorCtrl',
    color_xy: 'lightingColorCtrl',
    color_hs: 'lightingColorCtrl',
  },
  switch: { state: 'genOnOff' },
  cover: { state: 'closuresWindowCovering', position: 'closuresWindowCovering', tilt: 'closuresWindowCovering' },
  fan: { state: 'genOnOff', mode: 'hvacFanCtrl' },
  lock: { state: 'closuresDoorLock' },
};

/** The server cluster of a feature anywhere else (a climate expose is a thermostat). */
const BY_NAME: Readonly<Record<string, string>> = {
  temperature: 'msTemperatureMeasurement',
  local_temperature: 'hvacThermostat',
  humidity: 'msRelativeHumidity',
  pressure: 'msPressureMeasurement',
  illuminance: 'msIlluminanceMeasurement',
  illuminance_lux: 'msIlluminanceMeasurement',
  occupancy: 'msOccupancySensing',
  presence: 'msOccupancySensing',
  contact: 'ssIasZone',
  water_leak: 'ssIasZone',
  smoke: 'ssIasZone',
  gas: 'ssIasZone',
  tamper: 'ssIasZone',
  co2: 'msCO2',
  battery: 'genPowerCfg',
  power: 'haElectricalMeasurement',
  current: 'haElectricalMeasurement',
  voltage: 'haElectricalMeasurement',
  energy: 'seMetering',
  fan_mode: 'hvacFanCtrl',
  identify: 'genIdentify',
};

/** What a button's actions are sent on. */
const ACTION_CLUSTERS = ['genOnOff', 'genLevelCtrl', 'genScenes'];
/** Clusters whose endpoints take group membership. */
const GROUPED = ['genOnOff', 'genLevelCtrl', 'closuresWindowCovering', 'lightingColorCtrl'];

/** The endpoints of a simulated device of this model. */
export function simEndpoints(fixture: ModelFixture): SimEndpoint[] {
  const leaves = exposeLeaves(fixture.exposes);
  const named = [...new Set(leaves.flatMap((l) => (l.endpoint === undefined ? [] : [l.endpoint])))];
  const channels = numberChannels(named);
  const idOf = (name: string | undefined) =>
    name === undefined ? 1 : Number(channels.get(name)) || named.indexOf(name) + 1;
  const eps = new Map<number, SimEndpoint>();
  const ep = (name: string | undefined): SimEndpoint => {
    const id = idOf(name);
    let e = eps.get(id);
    if (!e) {
      e = { id, ...(name !== undefined ? { name } : {}), input: [], output: [] };
      eps.set(id, e);
    }
    return e;
  };
  // A battery device's voltage is its battery's (Power Configuration), not a mains measurement.
  const battery = leaves.some((l) => l.expose.name === 'battery');
  const add = (list: string[], c: string) => {
    if (!list.includes(c)) list.push(c);
  };
  ep(named[0]);
  for (const leaf of leaves) {
    const e = ep(leaf.endpoint);
    const name = leaf.expose.name ?? '';
    if (name === 'action') {
      for (const c of ACTION_CLUSTERS) add(e.output, c);
      continue;
    }
    const cluster =
      BY_PARENT[leaf.parent]?.[name] ??
      (leaf.parent === 'climate' ? 'hvacThermostat' : name === 'voltage' && battery ? 'genPowerCfg' : BY_NAME[name]);
    if (cluster) add(e.input, cluster);
  }
  const first = [...eps.values()].sort((a, b) => a.id - b.id)[0] as SimEndpoint;
  first.input.unshift('genBasic', 'genIdentify');
  first.input.splice(0, first.input.length, ...new Set(first.input));
  if (fixture.supports_ota) add(first.output, 'genOta');
  for (const e of eps.values())
    if (e.input.some((c) => GROUPED.includes(c))) for (const c of ['genGroups', 'genScenes']) add(e.input, c);
  return [...eps.values()].sort((a, b) => a.id - b.id);
}
