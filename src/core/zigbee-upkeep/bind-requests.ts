/**
 * Bindings asked for by clients: a remote, button or switch (or a sensor) bound, per cluster, to
 * a light, plug, cover or group, so that it commands it directly, even while the gateway is down;
 * and undone. A cluster binds when one end sends it and the other serves it (a remote's client
 * `genOnOff` to a light's server `genOnOff`; a sensor's server measurement to a thermostat's
 * client); to a group, when the source sends it. Clusters that do not match are refused before
 * anything is sent, naming what each end has.
 */
import { BINDABLE_CLUSTERS, checkBind, invalid } from './checks.ts';
import { type Answer, groupId, quoted, type UpkeepContext, type ZigbeeDevice } from './context.ts';
import type { BindRequest, ZigbeeBinding, ZigbeeEndpoint } from './contract.ts';
import type { BindingView } from './views.ts';

const BINDABLE: readonly string[] = BINDABLE_CLUSTERS;

interface BindBody {
  source: string;
  source_channel?: string;
  target: string;
  target_channel?: string;
  clusters?: string[];
}

const bindable = (list: readonly string[]) => list.filter((c) => BINDABLE.includes(c));
const listed = (list: readonly string[]) => (list.length > 0 ? list.join(', ') : 'none');

/** Whether `cluster` binds from `src` to `dst`: one sends it, the other serves it. */
function matches(src: ZigbeeEndpoint, dst: ZigbeeEndpoint, cluster: string): boolean {
  return (
    (src.output.includes(cluster) && dst.input.includes(cluster)) ||
    (src.input.includes(cluster) && dst.output.includes(cluster))
  );
}

/** A binding request checked and resolved, ready for the driver; `source` is kept for the answer. */
export function resolveBind(
  ctx: UpkeepContext,
  body: unknown,
  action: 'bind' | 'unbind',
): Answer<{ request: BindRequest; source: ZigbeeDevice }> {
  const errors = checkBind(body);
  if (errors.length > 0) return invalid(...errors);
  const b = body as BindBody;
  const src = ctx.device(b.source, 'source');
  if (!src.ok) return src;
  const s = src.value;
  const srcName = quoted(s.device.name);
  const srcEps = ctx.endpoints(s);
  if (!srcEps.ok) return srcEps;
  const named = ctx.channel(s, srcEps.value, b.source_channel, 'source_channel');
  if (!named.ok) return named;

  // The target: a group (its id, or its device's serial number), or a device.
  const group = ctx.group(b.target, 'target');
  let target: BindRequest['target'];
  let dst: ZigbeeEndpoint | undefined;
  let dstName: string;
  let pick: (clusters: readonly string[]) => ZigbeeEndpoint | undefined;
  if (group.ok) {
    const g = group.value.group;
    if (group.value.driverId !== s.driverId || g.network !== s.network)
      return invalid(`target: the group ${groupId(g)} is on the network ${g.network}, ${srcName} on ${s.network}`);
    if (b.target_channel !== undefined) return invalid('target_channel: a group has no channels');
    target = { group: g.key };
    dstName = `the group ${quoted(g.name)}`;
    pick = () => undefined;
  } else {
    const t = ctx.device(b.target, 'target');
    if (!t.ok) return t;
    if (t.value.driverId !== s.driverId || t.value.network !== s.network)
      return invalid(
        `target: ${quoted(t.value.device.name)} is on the network ${t.value.network}, ${srcName} on ${s.network}`,
      );
    const dstEps = ctx.endpoints(t.value);
    if (!dstEps.ok) return dstEps;
    const ch = ctx.channel(t.value, dstEps.value, b.target_channel, 'target_channel');
    if (!ch.ok) return ch;
    dstName = quoted(t.value.device.name);
    dst = ch.value;
    const eps = dstEps.value;
    // The endpoint that takes the most of the clusters (the channel named, when one is).
    pick = (clusters) =>
      dst ??
      [...eps].sort(
        (a, c) =>
          clusters.filter((x) => c.input.includes(x) || c.output.includes(x)).length -
          clusters.filter((x) => a.input.includes(x) || a.output.includes(x)).length,
      )[0];
    target = { device: t.value.device, endpoint: 0 };
  }

  // The source endpoint: the channel named, else the one that sends (or serves) what binds.
  const sending = srcEps.value.filter((e) => bindable(e.output).length > 0);
  const serving = srcEps.value.filter((e) => bindable(e.input).length > 0);
  const srcEp = named.value ?? sending[0] ?? serving[0];
  if (!srcEp) return invalid(`source: ${srcName} neither sends nor serves a cluster a binding carries`);

  const wanted = b.clusters ?? [];
  let clusters: string[];
  if ('group' in target) {
    const sends = bindable(srcEp.output);
    for (const [i, c] of wanted.entries())
      if (!sends.includes(c))
        return invalid(
          `clusters.${i}: ${c} does not match: ${srcName} does not send it (it sends ${listed(sends)}), and a group only takes commands`,
        );
    clusters = wanted.length > 0 ? wanted : sends;
    if (clusters.length === 0) return invalid(`source: ${srcName} sends no command a group takes`);
  } else {
    const ep = pick(wanted.length > 0 ? wanted : BINDABLE) as ZigbeeEndpoint;
    if (target.device.serial_number === s.device.serial_number && ep.id === srcEp.id)
      return invalid('target: the source itself');
    for (const [i, c] of wanted.entries())
      if (!matches(srcEp, ep, c))
        return invalid(
          `clusters.${i}: ${c} does not match: ${srcName} sends ${listed(bindable(srcEp.output))} and serves ${listed(bindable(srcEp.input))}, while ${dstName} serves ${listed(bindable(ep.input))} and sends ${listed(bindable(ep.output))}`,
        );
    clusters = wanted.length > 0 ? wanted : BINDABLE.filter((c) => matches(srcEp, ep, c));
    if (clusters.length === 0)
      return invalid(
        `clusters: ${srcName} and ${dstName} share no cluster a binding carries (${srcName} sends ${listed(bindable(srcEp.output))}, while ${dstName} serves ${listed(bindable(ep.input))})`,
      );
    target = { device: target.device, endpoint: ep.id };
  }

  if (action === 'unbind') {
    // Only what is bound is undone; asked for nothing in particular, every cluster bound to the target.
    const have = (s.ability.bindings(s.device) ?? []).filter(
      (x) => x.source_endpoint === srcEp.id && sameTarget(s, x, target),
    );
    const bound = clusters.filter((c) => have.some((x) => x.cluster === c));
    if (bound.length === 0)
      return invalid(
        `target: ${srcName} has no binding to ${dstName}${wanted.length > 0 ? ` on ${wanted.join(', ')}` : ''}`,
      );
    if (wanted.length > 0) {
      const i = wanted.findIndex((c) => !bound.includes(c));
      if (i >= 0) return invalid(`clusters.${i}: ${srcName} has no binding of ${wanted[i]} to ${dstName}`);
    }
    clusters = bound;
  }
  return { ok: true, value: { request: { source: s.device, source_endpoint: srcEp.id, target, clusters }, source: s } };
}

function sameTarget(s: ZigbeeDevice, b: ZigbeeBinding, t: BindRequest['target']): boolean {
  if ('group' in t) {
    const g = s.ability.groups().find((x) => x.key === t.group);
    return b.target.type === 'group' && b.target.id === g?.id;
  }
  return (
    b.target.type === 'endpoint' && b.target.ieee === t.device.extra.ieee_address && b.target.endpoint === t.endpoint
  );
}

/** A device's bindings, named by serial number and channel. */
export function bindingsView(ctx: UpkeepContext, z: ZigbeeDevice): BindingView[] {
  const devices = ctx.byIeee(z.driverId);
  const channelOf = (serial: string | undefined, endpoint: number) => {
    const d = serial ? ctx.registry.get(serial) : undefined;
    return d ? z.ability.endpoints(d)?.find((e) => e.id === endpoint)?.channel : undefined;
  };
  return (z.ability.bindings(z.device) ?? []).map((b) => {
    const sourceChannel = channelOf(z.device.serial_number, b.source_endpoint);
    const base = {
      cluster: b.cluster,
      source_endpoint: b.source_endpoint,
      ...(sourceChannel ? { source_channel: sourceChannel } : {}),
    };
    if (b.target.type === 'coordinator') return { ...base, target: { type: 'coordinator' } };
    if (b.target.type === 'group') {
      const id = b.target.id;
      const g = z.ability.groups().find((x) => x.network === z.network && x.id === id);
      const serial = g ? ctx.groupDevices.deviceOf(z.driverId, g.key)?.serial_number : undefined;
      return {
        ...base,
        target: { type: 'group', group: `${z.network}/${id}`, ...(serial ? { serial_number: serial } : {}) },
      };
    }
    const d = devices.get(b.target.ieee);
    const channel = channelOf(d?.serial_number, b.target.endpoint);
    return {
      ...base,
      target: {
        type: 'device',
        ...(d ? { serial_number: d.serial_number } : {}),
        ...(channel ? { channel } : {}),
        ieee_address: b.target.ieee,
        endpoint: b.target.endpoint,
      },
    };
  });
}
