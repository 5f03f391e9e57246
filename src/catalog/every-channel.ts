/**
 * A `toggle` command without its channel (`{"toggle":{"toggleState":"on"}}`, as an assistant's tool
 * sends to a multi-channel switch; COMPAT.md) means every channel of the device. The spec's body
 * names the channel (`{toggle:{<name>:{toggleState}}}`, several may be in one body) and says
 * nothing of a body without one; the channels of one switch are alike (the spec's `tags.toggle`
 * only labels them), so "turn the switch on" is each of them on, as `power` would be. The command
 * is written out in the spec's shape, one entry per channel, before it is checked: what a driver
 * or a third-party service receives is always named. docs/devices.md.
 */
import { isObject } from './format.ts';
import type { CapabilityObject } from './types.ts';

/** `state` with a channel-less `toggle` written out for every toggle channel of `caps`; otherwise `state` itself. */
export function withEveryChannel(caps: readonly CapabilityObject[], state: unknown): unknown {
  if (!isObject(state) || !isObject(state.toggle)) return state;
  const body = state.toggle;
  const keys = Object.keys(body);
  // Only the bare form: a value that is an object is a channel's body (a channel may have any name).
  if (keys.length !== 1 || keys[0] !== 'toggleState' || isObject(body.toggleState)) return state;
  const channels = caps.filter((c) => c.capability === 'toggle' && typeof c.name === 'string').map((c) => c.name);
  if (channels.length === 0) return state;
  const every: Record<string, unknown> = {};
  for (const name of channels) every[name as string] = { toggleState: body.toggleState };
  return { ...state, toggle: every };
}
