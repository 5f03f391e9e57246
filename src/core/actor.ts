/**
 * Who did a thing, for the activity log: an app by the name it gave with its token, the console
 * and which of its sessions, Home Assistant, Matter, or an automation by its id and name. Every
 * command of a client carries one (DeviceService.update), and the surfaces fill it in.
 */
export type Actor =
  | { kind: 'app'; tokenId: string; name: string | null }
  | { kind: 'console'; sessionId: string }
  | { kind: 'homeassistant' }
  | { kind: 'matter' }
  | { kind: 'automation'; id: string; name: string };

/** How the activity log names who did it. */
export function actorWords(actor: Actor | undefined): string {
  switch (actor?.kind) {
    case 'app':
      return actor.name ?? 'a client';
    case 'console':
      return `the console (session ${actor.sessionId})`;
    case 'homeassistant':
      return 'Home Assistant';
    case 'matter':
      return 'Matter';
    case 'automation':
      return `the automation ${actor.name}`;
    default:
      return 'a client';
  }
}

/** The app name an activity line carries in its fields (null when an app gave none, or not an app). */
export function appNameOf(actor: Actor | undefined): string | null {
  return actor?.kind === 'app' ? actor.name : null;
}

/** The end of a line that names who did it (nothing when nobody did: a sensor, a timer, a driver). */
export function byWords(actor: Actor | undefined): string {
  return actor ? `, by ${actorWords(actor)}` : '';
}

/** The fields of a line that say who did it, as a command's line has them (`by`, `app_name`). */
export function whoFields(actor: Actor | undefined): { by?: string; app_name?: string | null } {
  return actor ? { by: actorWords(actor), app_name: appNameOf(actor) } : {};
}
