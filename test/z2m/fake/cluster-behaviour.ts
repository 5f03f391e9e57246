/**
 * What a fake device does when it receives a cluster-specific ZCL command: the attribute changes a
 * real device makes (ZCL semantics), and the specific response where the cluster defines one. One
 * entry per cluster; a command missing here is answered UNSUP_COMMAND, as a real device does.
 */
import type { AttributeValues } from './spec.ts';

/** Gives the attribute values of another cluster on the same endpoint (created empty when absent). */
export type ClusterOf = (cluster: string) => AttributeValues;

export interface CommandContext {
  /** Attributes of the cluster the command is for (mutable). */
  attrs: AttributeValues;
  payload: Record<string, unknown>;
  other: ClusterOf;
  /** The groups the endpoint is a member of (the Groups cluster's table; mutable). */
  groups: Set<number>;
}

/** `ok`: done (a default response follows); `unsupported`: unknown command; or a specific response; or a movement. */
export type CommandOutcome =
  | 'ok'
  | 'unsupported'
  | { response: string; payload: Record<string, unknown> }
  | { move: { attribute: string; target: number } }
  | { stop: true };

type Behaviour = (command: string, ctx: CommandContext) => CommandOutcome;

const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

function onOff(command: string, { attrs }: CommandContext): CommandOutcome {
  switch (command) {
    case 'on':
    case 'onWithTimedOff':
    case 'onWithRecallGlobalScene':
      attrs.onOff = 1;
      return 'ok';
    case 'off':
    case 'offWithEffect':
      attrs.onOff = 0;
      return 'ok';
    case 'toggle':
      attrs.onOff = attrs.onOff ? 0 : 1;
      return 'ok';
    default:
      return 'unsupported';
  }
}

function level(command: string, { attrs, payload, other }: CommandContext): CommandOutcome {
  // The *WithOnOff variants also switch the light: level above the minimum means on (ZCL 3.10.2.4).
  const withOnOff = command.endsWith('WithOnOff');
  const base = withOnOff ? command.slice(0, -'WithOnOff'.length) : command;
  const current = num(attrs.currentLevel, 254);
  let next = current;
  switch (base) {
    case 'moveToLevel':
      next = num(payload.level, current);
      break;
    case 'step':
      next = current + (payload.stepmode === 1 ? -1 : 1) * num(payload.stepsize);
      break;
    case 'move':
      next = payload.movemode === 1 ? 1 : 254;
      break;
    case 'stop':
      return 'ok';
    default:
      return 'unsupported';
  }
  next = clamp(Math.round(next), 0, 254);
  if (withOnOff) other('genOnOff').onOff = next > 1 ? 1 : 0;
  attrs.currentLevel = Math.max(1, next);
  return 'ok';
}

function colour(command: string, { attrs, payload }: CommandContext): CommandOutcome {
  const mode = (m: number, enhanced = m) => {
    attrs.colorMode = m;
    attrs.enhancedColorMode = enhanced;
  };
  switch (command) {
    case 'moveToColor':
      attrs.currentX = num(payload.colorx);
      attrs.currentY = num(payload.colory);
      mode(1);
      return 'ok';
    case 'moveToColorTemp': {
      const lo = num(attrs.colorTempPhysicalMin, 153);
      const hi = num(attrs.colorTempPhysicalMax, 500);
      attrs.colorTemperature = clamp(num(payload.colortemp), lo, hi);
      mode(2);
      return 'ok';
    }
    case 'stepColorTemp': {
      const lo = num(attrs.colorTempPhysicalMin, 153);
      const hi = num(attrs.colorTempPhysicalMax, 500);
      const sign = payload.stepmode === 3 ? -1 : 1;
      attrs.colorTemperature = clamp(num(attrs.colorTemperature, lo) + sign * num(payload.stepsize), lo, hi);
      mode(2);
      return 'ok';
    }
    case 'moveToHueAndSaturation':
      attrs.currentHue = num(payload.hue);
      attrs.enhancedCurrentHue = num(payload.hue) * 256;
      attrs.currentSaturation = num(payload.saturation);
      mode(0);
      return 'ok';
    case 'enhancedMoveToHueAndSaturation':
      attrs.enhancedCurrentHue = num(payload.enhancehue);
      attrs.currentHue = Math.round(num(payload.enhancehue) / 256);
      attrs.currentSaturation = num(payload.saturation);
      mode(0, 3);
      return 'ok';
    case 'moveToHue':
      attrs.currentHue = num(payload.hue);
      mode(0);
      return 'ok';
    case 'enhancedMoveToHue':
      attrs.enhancedCurrentHue = num(payload.enhancehue);
      attrs.currentHue = Math.round(num(payload.enhancehue) / 256);
      mode(0, 3);
      return 'ok';
    case 'moveToSaturation':
      attrs.currentSaturation = num(payload.saturation);
      mode(0);
      return 'ok';
    case 'stopMoveStep':
    case 'moveColorTemp':
    case 'colorLoopSet':
      return 'ok';
    default:
      return 'unsupported';
  }
}

function windowCovering(command: string, { payload }: CommandContext): CommandOutcome {
  // ZCL lift percentage: 0 is fully open, 100 fully closed. The blind travels there over time.
  switch (command) {
    case 'upOpen':
      return { move: { attribute: 'currentPositionLiftPercentage', target: 0 } };
    case 'downClose':
      return { move: { attribute: 'currentPositionLiftPercentage', target: 100 } };
    case 'goToLiftPercentage':
      return {
        move: { attribute: 'currentPositionLiftPercentage', target: clamp(num(payload.percentageliftvalue), 0, 100) },
      };
    case 'stop':
      return { stop: true };
    default:
      return 'unsupported';
  }
}

function thermostat(command: string, { attrs, payload }: CommandContext): CommandOutcome {
  if (command !== 'setpointRaiseLower') return 'unsupported';
  // amount is in 0.1 °C steps, setpoints in 0.01 °C.
  const delta = num(payload.amount) * 10;
  if (payload.mode === 0 || payload.mode === 2)
    attrs.occupiedHeatingSetpoint = num(attrs.occupiedHeatingSetpoint, 2000) + delta;
  if (payload.mode === 1 || payload.mode === 2)
    attrs.occupiedCoolingSetpoint = num(attrs.occupiedCoolingSetpoint, 2600) + delta;
  return 'ok';
}

function iasZone(command: string, { attrs, payload }: CommandContext): CommandOutcome {
  switch (command) {
    case 'enrollRsp':
      // A success code enrolls the zone (zoneState 1), which herdsman's interview waits for.
      if (payload.enrollrspcode === 0) {
        attrs.zoneState = 1;
        attrs.zoneId = num(payload.zoneid);
      }
      return 'ok';
    case 'initNormalOpMode':
    case 'initTestMode':
      return 'ok';
    default:
      return 'unsupported';
  }
}

function groups(command: string, { payload, groups: member }: CommandContext): CommandOutcome {
  const groupid = num(payload.groupid);
  switch (command) {
    case 'add':
    case 'addIfIdentifying':
      member.add(groupid);
      return command === 'add' ? { response: 'addRsp', payload: { status: 0, groupid } } : 'ok';
    case 'remove':
      // NOT_FOUND (0x8b) for a group it is not in (ZCL 3.6.2.3.3).
      return { response: 'removeRsp', payload: { status: member.delete(groupid) ? 0 : 0x8b, groupid } };
    case 'getMembership': {
      const asked = Array.isArray(payload.grouplist) ? (payload.grouplist as number[]) : [];
      const grouplist = [...member].filter((g) => asked.length === 0 || asked.includes(g));
      return {
        response: 'getMembershipRsp',
        payload: { capacity: 16 - member.size, groupcount: grouplist.length, grouplist },
      };
    }
    case 'removeAll':
      member.clear();
      return 'ok';
    default:
      return 'unsupported';
  }
}

function scenes(command: string, { payload }: CommandContext): CommandOutcome {
  const groupid = num(payload.groupid);
  switch (command) {
    case 'add':
      return { response: 'addRsp', payload: { status: 0, groupId: groupid, sceneId: num(payload.sceneid) } };
    case 'store':
      return { response: 'storeRsp', payload: { status: 0, groupid, sceneid: num(payload.sceneid) } };
    case 'remove':
      return { response: 'removeRsp', payload: { status: 0, groupid, sceneid: num(payload.sceneid) } };
    case 'removeAll':
      return { response: 'removeAllRsp', payload: { status: 0, groupid } };
    case 'recall':
      return 'ok';
    default:
      return 'unsupported';
  }
}

const acknowledge =
  (...known: string[]): Behaviour =>
  (command) =>
    known.includes(command) ? 'ok' : 'unsupported';

/** Behaviour by herdsman cluster name. */
export const CLUSTER_BEHAVIOUR: Readonly<Record<string, Behaviour>> = {
  genOnOff: onOff,
  genLevelCtrl: level,
  lightingColorCtrl: colour,
  closuresWindowCovering: windowCovering,
  hvacThermostat: thermostat,
  ssIasZone: iasZone,
  genGroups: groups,
  genScenes: scenes,
  genIdentify: acknowledge('identify', 'triggerEffect'),
  genBasic: acknowledge('resetFactDefault'),
  genPollCtrl: acknowledge('checkinRsp', 'fastPollStop', 'setLongPollInterval', 'setShortPollInterval'),
};
