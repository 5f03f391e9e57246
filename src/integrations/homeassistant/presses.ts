/**
 * Presses (`press`, `multi-press` channels) are events, not states: each button is an event
 * entity (`{"event_type": <action>}` on its topic) and one device trigger per action (the action's
 * name on the button's action topic). Neither is retained, and a reconnect does not replay them.
 */
import type { CapabilityObject } from '../../catalog/index.ts';
import type { Entity, Message } from './entity.ts';
import { triggerTypes } from './mapping-table.ts';
import { capabilityKey } from './simple.ts';
import { bodyIn, enumValues } from './values.ts';

/** The trigger subtype of a button: `button_<n>` for channels 1..6 (the frontend names those), else the channel. */
function subtype(cap: CapabilityObject): string {
  if (cap.name === undefined) return 'button_1';
  return /^[1-6]$/.test(cap.name) ? `button_${cap.name}` : cap.name;
}

/** The press of a state change for this button, if it carries one. */
function pressIn(changed: Record<string, unknown>, cap: CapabilityObject): string | undefined {
  const v = bodyIn(changed, cap.capability, cap.name)?.press;
  return typeof v === 'string' ? v : undefined;
}

/** The event entity and the device triggers of one button. */
export function pressEntities(cap: CapabilityObject, label: string): Entity[] {
  const key = capabilityKey(cap);
  const actions = enumValues(cap, 'press').map(String);
  const actionKey = `${key}_action`;
  const event: Entity = {
    component: 'event',
    key,
    sources: new Set([cap.capability]),
    followsDevice: true,
    commands: [],
    config: (t) => ({
      name: cap.name === undefined ? label : `${label} ${cap.name}`,
      state_topic: t.state(),
      event_types: actions,
      device_class: 'button',
    }),
    states: () => [],
    events(changed): Message[] {
      const action = pressIn(changed, cap);
      if (action === undefined) return [];
      return [{ payload: JSON.stringify({ event_type: action }) }, { sub: 'action', payload: action }];
    },
  };
  const triggers: Entity[] = actions.map((action) => ({
    component: 'device_automation',
    key: `${key}_${action.replace(/[^A-Za-z0-9]/g, '_')}`,
    // Every trigger of the button reads the button's one action topic.
    topicKey: actionKey,
    sources: new Set([cap.capability]),
    followsDevice: false,
    commands: [],
    config: (t) => ({
      automation_type: 'trigger',
      topic: t.state(),
      payload: action,
      type: triggerTypes[action] ?? action,
      subtype: subtype(cap),
    }),
    states: () => [],
  }));
  return [event, ...triggers];
}
