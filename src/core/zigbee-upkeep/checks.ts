/**
 * The shapes of what callers send the Zigbee upkeep service, as schemas of the catalog's language
 * (messages `path: rule`, as every route writes them). What no schema can say (a device named
 * exists, a cluster matches on both ends) is checked by the service.
 */
import { compileTop } from '../../catalog/compile-strict.ts';
import { ErrorCode, type Failure, failure } from '../../catalog/errors.ts';
import { deviceLimits } from '../../catalog/index.ts';
import { arr, bool, int, obj, oneOf, opt, str } from '../../catalog/schema.ts';

/**
 * The clusters a binding can carry: commands a remote, button or switch sends (on/off, level,
 * colour, covers, scenes) and measurements a sensor reports to a thermostat; the list Zigbee2MQTT
 * tries when it is given none.
 */
export const BINDABLE_CLUSTERS = [
  'genScenes',
  'genOnOff',
  'genLevelCtrl',
  'lightingColorCtrl',
  'closuresWindowCovering',
  'hvacThermostat',
  'msIlluminanceMeasurement',
  'msTemperatureMeasurement',
  'msRelativeHumidity',
  'msSoilMoisture',
  'msCO2',
] as const;

/** The most groups a network has through the gateway (spec 7: 110008). */
export const MAX_GROUPS = 50;
/** The highest Zigbee group id a client may give (0xfff8 and above are reserved). */
export const MAX_GROUP_ID = 0xfff7;

/** The shapes of what callers send, for the routes that declare them (and the OpenAPI document). */
export const UPKEEP_SCHEMAS = (() => {
  const serial = str({ maxLength: 500, pattern: /\S/, patternDoc: 'a serial number' });
  const channel = str({ maxLength: 64, pattern: /^[A-Za-z0-9_-]+$/, patternDoc: 'a channel name (`1`, `2`)' });
  /** A group name becomes an MQTT topic in Zigbee2MQTT: no wildcard, no level separator. */
  const groupName = str({
    maxLength: deviceLimits.nameChars,
    pattern: /^(?=.*\S)[^/#+\p{Cc}]+$/u,
    patternDoc: 'a name without /, # or +',
  });
  /** A group: `<network>/<id>` as the service lists it, or the serial number of its device. */
  const group = str({ maxLength: 600, pattern: /\S/, patternDoc: 'a group (`<network>/<id>`) or its serial number' });
  const network = str({ maxLength: 300 });
  const member = obj({ serial_number: serial, channel: opt(channel) }, { open: true });
  return {
    serial,
    channel,
    group,
    network,
    member,
    createGroup: obj(
      {
        name: groupName,
        network: opt(network),
        id: opt(int({ min: 1, max: MAX_GROUP_ID })),
        members: opt(arr(obj({ serial_number: serial, channel: opt(channel) }), { maxItems: 100 })),
      },
      { open: true },
    ),
    rename: obj({ name: groupName }, { open: true }),
    bind: obj(
      {
        source: serial,
        source_channel: opt(channel),
        target: group,
        target_channel: opt(channel),
        clusters: opt(arr(oneOf(...BINDABLE_CLUSTERS), { minItems: 1, maxItems: BINDABLE_CLUSTERS.length })),
      },
      { open: true },
    ),
    scan: obj({ network: opt(network), routes: opt(bool('also read the routing tables')) }, { open: true }),
  };
})();

const S = UPKEEP_SCHEMAS;
export const checkSerial = compileTop(obj({ serial_number: S.serial }, { open: true }), 'body');
export const checkCreateGroup = compileTop(S.createGroup, 'body');
export const checkRename = compileTop(S.rename, 'body');
export const checkMember = compileTop(S.member, 'body');
export const checkBind = compileTop(S.bind, 'body');
export const checkScan = compileTop(S.scan, 'body');

/** A refusal of what was asked: 400 with the messages. */
export function invalid(...errors: string[]): { ok: false } & Failure {
  return { ok: false, ...failure(ErrorCode.INVALID_PARAMETERS, errors.join('; ')) };
}
