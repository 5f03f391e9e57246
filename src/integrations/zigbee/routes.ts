/**
 * The routes of the Zigbee upkeep, one declaration served on the Open API (under
 * `/open-api/{v1,v2}/rest/zigbee/...`, a token, the envelope) and on the console's API (under
 * `/console/api/zigbee/...`, a session, HTTP statuses): firmware, groups, bindings and the network
 * map. `zigbee/` is a path no client of the hardware gateways uses (their API has none). What is
 * long on a real network answers at once and goes on, its progress and end on the event streams:
 * an update (minutes), a check of every device, a scan of the map; a check of one device answers
 * with its result when it comes within CHECK_ANSWER_MS (a sleeping device may take a minute),
 * else with `checking`.
 */
import { ErrorCode, type Failed } from '../../catalog/errors.ts';
import { arr, obj, opt, str } from '../../catalog/schema.ts';
import { answered, type RouteAnswer, type RouteDecl, refused } from '../../core/route.ts';
import { type Answer, UPKEEP_SCHEMAS, type ZigbeeUpkeepService } from '../../core/zigbee-upkeep/index.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { bindingView, firmwareView, groupView, networkMapView, networkStatus, scanStarted } from './schemas.ts';

/** How long a check of one device may take before its answer says `checking` (clients wait 5 s). */
export const CHECK_ANSWER_MS = 4000;

const { serial, channel, group, network } = UPKEEP_SCHEMAS;

/** A failure of the service as a refusal; a network that does not answer is 503 in the console. */
function refusal(f: Failed): RouteAnswer {
  return f.code === ErrorCode.SERVER_ERROR ? refused(f.code, f.message, 503) : refused(f.code, f.message);
}

/** An answer of the service as the route's: `{[key]: value}`, or the refusal. */
function as<T>(key: string, a: Answer<T>): RouteAnswer {
  return a.ok ? answered({ [key]: a.value }) : refusal(a);
}

/** The value of `p` if it settles within `ms` of the clock; undefined otherwise (it goes on). */
async function within<T>(clock: Clock, p: Promise<T>, ms: number): Promise<T | undefined> {
  let stop = () => {};
  const late = new Promise<undefined>((done) => {
    stop = clock.setTimer(ms, () => done(undefined));
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    stop();
  }
}

const FIRMWARE_ERRORS = [
  ErrorCode.DEVICE_NOT_FOUND,
  ErrorCode.DEVICE_OFFLINE,
  ErrorCode.DEVICE_UPDATE_FAILED,
  ErrorCode.SERVER_ERROR,
] as const;
const GROUP_ERRORS = [
  ErrorCode.DEVICE_NOT_FOUND,
  ErrorCode.GROUP_NO_COMMON_CAPABILITY,
  ErrorCode.GROUP_UPDATE_FAILED,
  ErrorCode.GROUP_LIMIT,
  ErrorCode.DEVICE_UPDATE_FAILED,
  ErrorCode.SERVER_ERROR,
] as const;

/** The routes, over the service (made when first used). */
export function zigbeeRoutes(upkeep: () => ZigbeeUpkeepService, clock: Clock, log: Log): RouteDecl[] {
  const bySerial = { serial_number: serial };
  return [
    {
      method: 'GET',
      path: '/zigbee/networks',
      summary: 'The Zigbee networks: whether each answers, a scan or an update running on it',
      answer: obj({ networks: arr(networkStatus) }),
      handle: () => answered({ networks: upkeep().networks() }),
    },
    // ---- firmware ----
    {
      method: 'GET',
      path: '/zigbee/firmware',
      summary: 'The firmware of every Zigbee device: installed and latest version, state, progress',
      answer: obj({ firmware: arr(firmwareView) }),
      handle: () => answered({ firmware: upkeep().firmwareList() }),
    },
    {
      method: 'POST',
      path: '/zigbee/firmware/check',
      summary:
        'Checks every device that takes updates and is online, one after the other (mains-powered first); answers at once with those it will check, the results come as zigbee#firmware events',
      answer: obj({ serial_numbers: arr(str()) }),
      handle: () =>
        as(
          'serial_numbers',
          mapValue(upkeep().checkAllFirmware(), (v) => v.serial_numbers),
        ),
    },
    {
      method: 'GET',
      path: '/zigbee/firmware/{serial_number}',
      summary: "A device's firmware",
      params: bySerial,
      answer: obj({ firmware: firmwareView }),
      errors: [ErrorCode.DEVICE_NOT_FOUND, ErrorCode.DEVICE_UPDATE_FAILED, ErrorCode.SERVER_ERROR],
      handle: ({ params }) => as('firmware', upkeep().firmwareOf(params.serial_number)),
    },
    {
      method: 'POST',
      path: '/zigbee/firmware/{serial_number}/check',
      summary:
        'Asks the device what it runs and the index what there is; answers with the result, or with `checking` when the device takes longer than 4 s (a sleeping one answers when it wakes): the result then comes as a zigbee#firmware event',
      params: bySerial,
      answer: obj({ firmware: firmwareView }),
      errors: FIRMWARE_ERRORS,
      handle: async ({ params }) => {
        const s = upkeep();
        const check = s.checkFirmware({ serial_number: params.serial_number });
        check.catch((err) => log.error({ err }, 'zigbee: a firmware check failed'));
        const done = await within(clock, check, CHECK_ANSWER_MS);
        return as('firmware', done ?? s.firmwareOf(params.serial_number));
      },
    },
    {
      method: 'POST',
      path: '/zigbee/firmware/{serial_number}/update',
      summary:
        'Installs the newest firmware: at once when no update runs on its network, else queued (one at a time per network); the progress comes as zigbee#firmware events',
      params: bySerial,
      answer: obj({ firmware: firmwareView }),
      errors: FIRMWARE_ERRORS,
      handle: ({ params }) => as('firmware', upkeep().updateFirmware({ serial_number: params.serial_number })),
    },
    {
      method: 'DELETE',
      path: '/zigbee/firmware/{serial_number}/update',
      summary:
        "Cancels a device's update: a queued one leaves the queue, a running one is stopped (the device keeps the firmware it runs)",
      params: bySerial,
      answer: obj({ firmware: firmwareView }),
      errors: FIRMWARE_ERRORS,
      handle: async ({ params }) =>
        as('firmware', await upkeep().cancelFirmwareUpdate({ serial_number: params.serial_number })),
    },
    // ---- groups ----
    {
      method: 'GET',
      path: '/zigbee/groups',
      summary: 'Every Zigbee group: its members and what they share',
      answer: obj({ groups: arr(groupView) }),
      handle: () => answered({ groups: upkeep().groups() }),
    },
    {
      method: 'POST',
      path: '/zigbee/groups',
      summary:
        'Makes a group on a network (the only one when none is named), optionally with its Zigbee group id and first members; all or nothing',
      body: UPKEEP_SCHEMAS.createGroup,
      answer: obj({ group: groupView }),
      errors: GROUP_ERRORS,
      handle: async ({ body }) => as('group', await upkeep().createGroup(body)),
    },
    {
      method: 'GET',
      path: '/zigbee/groups/{group}',
      summary: 'One group, by `<network>/<id>` (URL-encoded: `zigbee2mqtt%2F3`) or the serial number of its device',
      params: { group },
      answer: obj({ group: groupView }),
      errors: [ErrorCode.DEVICE_NOT_FOUND],
      handle: ({ params }) => as('group', upkeep().group(params.group)),
    },
    {
      method: 'PUT',
      path: '/zigbee/groups/{group}',
      summary: "Renames a group on its network (and its device's name)",
      params: { group },
      body: UPKEEP_SCHEMAS.rename,
      answer: obj({ group: groupView }),
      errors: GROUP_ERRORS,
      handle: async ({ params, body }) => as('group', await upkeep().renameGroup(params.group, body)),
    },
    {
      method: 'DELETE',
      path: '/zigbee/groups/{group}',
      summary: 'Deletes a group from its network (its members stay paired); answers with the group it was',
      params: { group },
      answer: obj({ group: groupView }),
      errors: GROUP_ERRORS,
      handle: async ({ params }) => as('group', await upkeep().deleteGroup(params.group)),
    },
    {
      method: 'POST',
      path: '/zigbee/groups/{group}/members',
      summary: 'Adds a member: a device, or one channel of a multi-channel device',
      params: { group },
      body: UPKEEP_SCHEMAS.member,
      answer: obj({ group: groupView }),
      errors: GROUP_ERRORS,
      handle: async ({ params, body }) => as('group', await upkeep().addGroupMember(params.group, body)),
    },
    {
      method: 'DELETE',
      path: '/zigbee/groups/{group}/members/{serial_number}',
      summary: 'Removes a member (`?channel=2` for one channel of a multi-channel device)',
      params: { group, serial_number: serial },
      query: obj({ channel: opt(channel) }),
      answer: obj({ group: groupView }),
      errors: GROUP_ERRORS,
      handle: async ({ params, query }) =>
        as(
          'group',
          await upkeep().removeGroupMember(params.group, {
            serial_number: params.serial_number,
            ...(query.channel !== undefined ? { channel: query.channel } : {}),
          }),
        ),
    },
    // ---- bindings ----
    {
      method: 'GET',
      path: '/zigbee/bindings/{serial_number}',
      summary:
        "A device's bindings, as its network last read them (those made for reporting, to the coordinator, included)",
      params: bySerial,
      answer: obj({ bindings: arr(bindingView) }),
      errors: [ErrorCode.DEVICE_NOT_FOUND, ErrorCode.DEVICE_UPDATE_FAILED, ErrorCode.SERVER_ERROR],
      handle: ({ params }) => as('bindings', upkeep().bindings(params.serial_number)),
    },
    {
      method: 'POST',
      path: '/zigbee/bind',
      summary:
        "Binds a remote, button, switch or sensor to a device or a group, per cluster (one end sends it, the other serves it); answers with the source's bindings",
      body: UPKEEP_SCHEMAS.bind,
      answer: obj({ bindings: arr(bindingView) }),
      errors: [ErrorCode.DEVICE_NOT_FOUND, ErrorCode.DEVICE_UPDATE_FAILED, ErrorCode.SERVER_ERROR],
      handle: async ({ body }) => as('bindings', await upkeep().bind(body)),
    },
    {
      method: 'POST',
      path: '/zigbee/unbind',
      summary: "Undoes bindings (only what is bound); answers with the source's bindings",
      body: UPKEEP_SCHEMAS.bind,
      answer: obj({ bindings: arr(bindingView) }),
      errors: [ErrorCode.DEVICE_NOT_FOUND, ErrorCode.DEVICE_UPDATE_FAILED, ErrorCode.SERVER_ERROR],
      handle: async ({ body }) => as('bindings', await upkeep().unbind(body)),
    },
    // ---- the network map ----
    {
      method: 'GET',
      path: '/zigbee/map',
      summary:
        "A network's last map (`?network=`, needed when there are several): nodes, links with their quality, routes; its devices as they are now",
      query: obj({ network: opt(network) }),
      answer: obj({ map: networkMapView }),
      errors: [ErrorCode.NOT_FOUND],
      handle: ({ query }) => as('map', upkeep().networkMap(query.network)),
    },
    {
      method: 'POST',
      path: '/zigbee/map/scan',
      summary:
        'Scans a network: every router is asked for its neighbours (and routes with `routes`), one after another. On a large network it takes minutes and floods it with requests: it runs only when asked for, one at a time. Answers at once; the end comes as a zigbee#networkMap event',
      body: UPKEEP_SCHEMAS.scan,
      answer: obj({ scan: scanStarted }),
      errors: [ErrorCode.SERVER_ERROR],
      handle: ({ body }) => as('scan', upkeep().startScan(body)),
    },
  ];
}

function mapValue<T, U>(a: Answer<T>, fn: (v: T) => U): Answer<U> {
  return a.ok ? { ok: true, value: fn(a.value) } : a;
}
