/**
 * Groups asked for by clients: create (with members), rename, delete, add and remove a member (a
 * device, or one channel of it). Everything is checked before the network is asked: the member
 * exists on the same network, the channel exists and has a Groups cluster, it shares something
 * with the other members (110002), at most 50 groups (110008), names and ids not taken.
 */
import { ErrorCode, failure } from '../../catalog/errors.ts';
import { fmt } from '../../lib/format.ts';
import { checkCreateGroup, checkMember, checkRename, invalid, MAX_GROUPS } from './checks.ts';
import { type Answer, type FoundGroup, quoted, type UpkeepContext, type ZigbeeDevice } from './context.ts';
import type { GroupMember, Result, ZigbeeEndpoint, ZigbeeGroup } from './contract.ts';

/** A member asked for, resolved: the device and the endpoint in the group. */
interface Member {
  z: ZigbeeDevice;
  endpoint: ZigbeeEndpoint;
}

function fromResult<T>(r: Result<T>): Answer<T> {
  return r.ok ? r : { ok: false, ...failure(r.code, r.message) };
}

/** Resolves one member (`{serial_number, channel?}`) of a group on `network`; `at` prefixes paths. */
export function resolveMember(
  ctx: UpkeepContext,
  driverId: string,
  network: string,
  body: { serial_number: string; channel?: string },
  at = '',
): Answer<Member> {
  const z = ctx.device(body.serial_number, `${at}serial_number`);
  if (!z.ok) return z;
  const name = quoted(z.value.device.name);
  if (z.value.driverId !== driverId || z.value.network !== network)
    return invalid(`${at}serial_number: ${name} is on the network ${z.value.network}, the group on ${network}`);
  const eps = ctx.endpoints(z.value);
  if (!eps.ok) return eps;
  const named = ctx.channel(z.value, eps.value, body.channel, `${at}channel`);
  if (!named.ok) return named;
  let endpoint = named.value;
  if (!endpoint) {
    const groupable = eps.value.filter((e) => e.input.includes('genGroups'));
    const channels = groupable.flatMap((e) => (e.channel ? [e.channel] : []));
    if (channels.length > 1)
      return invalid(`${at}channel: required: ${name} has the channels ${channels.join(', ')}: name the one to group`);
    endpoint = groupable[0];
    if (!endpoint)
      return invalid(
        `${at}serial_number: ${name} cannot be in a group: it has no Groups cluster (a remote or a sensor sends commands, it does not take them)`,
      );
  }
  if (!endpoint.input.includes('genGroups'))
    return invalid(`${at}channel: channel ${body.channel} of ${name} cannot be in a group: it has no Groups cluster`);
  return { ok: true, value: { z: z.value, endpoint } };
}

const asMember = (m: Member): GroupMember => ({
  ieee: String(m.z.device.extra.ieee_address),
  endpoint: m.endpoint.id,
});

/** Whether the members would still share something (110002 names the one that breaks it). */
function sharing(
  found: { ability: FoundGroup['ability'] },
  network: string,
  members: GroupMember[],
  m: Member,
  at: string,
) {
  if (found.ability.shared(network, members).length > 0) return undefined;
  const name = quoted(m.z.device.name);
  return {
    ok: false as const,
    ...failure(
      ErrorCode.GROUP_NO_COMMON_CAPABILITY,
      members.length === 1
        ? `${at}serial_number: ${name} has nothing a group command reaches (the on/off, brightness and colour of lights, switches, covers)`
        : `${at}serial_number: ${name} shares no capability with the other members (lights, switches and covers are grouped among themselves)`,
    ),
  };
}

/** Creates a group, with its members; all or nothing (a member the network refuses removes the group again). */
export async function createGroup(ctx: UpkeepContext, body: unknown): Promise<Answer<FoundGroup>> {
  const errors = checkCreateGroup(body);
  if (errors.length > 0) return invalid(...errors);
  const b = body as {
    name: string;
    network?: string;
    id?: number;
    members?: { serial_number: string; channel?: string }[];
  };
  const net = ctx.network(b.network);
  if (!net.ok) return net;
  const { network, driverId, ability } = net.value;
  const reach = ability.reachable(network);
  if (!reach.ok) return { ok: false, ...failure(ErrorCode.GROUP_UPDATE_FAILED, reach.message) };
  const existing = ability.groups().filter((g) => g.network === network);
  if (existing.length >= MAX_GROUPS) return { ok: false, ...failure(ErrorCode.GROUP_LIMIT) };
  const name = b.name.trim();
  const taken = existing.find((g) => g.name === name);
  if (taken) return invalid(`name: the group ${network}/${taken.id} is named ${fmt(name)} already`);
  if (b.id !== undefined && existing.some((g) => g.id === b.id))
    return invalid(`id: the group ${network}/${b.id} exists already`);
  const members: Member[] = [];
  for (const [i, m] of (b.members ?? []).entries()) {
    const r = resolveMember(ctx, driverId, network, m, `members.${i}.`);
    if (!r.ok) return r;
    if (
      members.some(
        (x) => x.z.device.serial_number === r.value.z.device.serial_number && x.endpoint.id === r.value.endpoint.id,
      )
    )
      return invalid(`members.${i}: named twice`);
    const all = [...members, r.value].map(asMember);
    const none = sharing({ ability }, network, all, r.value, `members.${i}.`);
    if (none) return none;
    members.push(r.value);
  }
  const created = await ability.createGroup(network, name, b.id);
  if (!created.ok) return fromResult(created);
  let group: ZigbeeGroup = created.value;
  for (const m of members) {
    const added = await ability.addGroupMember(group.key, m.z.device, m.endpoint.id);
    if (!added.ok) {
      await ability.removeGroup(group.key);
      return {
        ok: false,
        ...failure(
          added.code,
          `${quoted(m.z.device.name)} could not be added, so the group was not made: ${added.message}`,
        ),
      };
    }
    group = added.value;
  }
  return { ok: true, value: { driverId, ability, group } };
}

export async function renameGroup(ctx: UpkeepContext, ref: string, body: unknown): Promise<Answer<FoundGroup>> {
  const errors = checkRename(body);
  if (errors.length > 0) return invalid(...errors);
  const found = ctx.group(ref);
  if (!found.ok) return found;
  const { driverId, ability, group } = found.value;
  const name = (body as { name: string }).name.trim();
  const taken = ability.groups().find((g) => g.network === group.network && g.name === name && g.key !== group.key);
  if (taken) return invalid(`name: the group ${group.network}/${taken.id} is named ${fmt(name)} already`);
  if (name === group.name) return { ok: true, value: found.value };
  const r = await ability.renameGroup(group.key, name);
  return r.ok ? { ok: true, value: { driverId, ability, group: r.value } } : fromResult(r);
}

export async function deleteGroup(ctx: UpkeepContext, ref: string): Promise<Answer<FoundGroup>> {
  const found = ctx.group(ref);
  if (!found.ok) return found;
  const r = await found.value.ability.removeGroup(found.value.group.key);
  return r.ok ? found : fromResult(r);
}

export async function changeMember(
  ctx: UpkeepContext,
  ref: string,
  body: unknown,
  action: 'add' | 'remove',
): Promise<Answer<FoundGroup>> {
  const errors = checkMember(body);
  if (errors.length > 0) return invalid(...errors);
  const found = ctx.group(ref);
  if (!found.ok) return found;
  const { driverId, ability, group } = found.value;
  const m = resolveMember(ctx, driverId, group.network, body as { serial_number: string; channel?: string });
  if (!m.ok) return m;
  const member = asMember(m.value);
  const isIn = group.members.some((x) => x.ieee === member.ieee && x.endpoint === member.endpoint);
  const name = quoted(m.value.z.device.name);
  const what = m.value.endpoint.channel ? `channel ${m.value.endpoint.channel} of ${name}` : name;
  if (action === 'add') {
    if (isIn) return invalid(`serial_number: ${what} is in the group already`);
    const none = sharing({ ability }, group.network, [...group.members, member], m.value, '');
    if (none) return none;
  } else if (!isIn) return invalid(`serial_number: ${what} is not in the group`);
  const r =
    action === 'add'
      ? await ability.addGroupMember(group.key, m.value.z.device, m.value.endpoint.id)
      : await ability.removeGroupMember(group.key, m.value.z.device, m.value.endpoint.id);
  return r.ok ? { ok: true, value: { driverId, ability, group: r.value } } : fromResult(r);
}
