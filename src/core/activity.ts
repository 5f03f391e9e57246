/**
 * The activity log: one line at `info` for each thing a person wants to know happened, read off
 * the domain events (a device added, removed, renamed, going offline; the link button; a token
 * issued or revoked; arming, disarming, the alarm). Never a token or a password. A thing a person
 * did through a surface names who did it at the end of its line, in actorWords' words (`armed:
 * Home, by Kitchen tablet`), from the event's `by`, which no stream sends. Commands log their own
 * line with who asked (DeviceService.update); a changed setting logs in LiveSettings; failed
 * directives, and a Zigbee device leaving the network (`device left: <name>`), log in their driver.
 */
import type { Log } from '../lib/log.ts';
import { byWords, whoFields } from './actor.ts';
import type { BusEvent, EventBus, EventPayloads } from './event-bus.ts';

type Payload<N extends keyof EventPayloads> = EventPayloads[N];

export class ActivityLog {
  /** Device names by serial number, to name a device in the line of its removal. */
  private readonly names = new Map<string, string>();
  /** The apps waiting for approval as last told: a line names only the ones new since. */
  private waiting = new Set<string>();
  private unsubscribe?: () => void;

  constructor(
    private readonly bus: EventBus,
    private readonly log: Log,
    known: () => readonly { serial_number: string; name: string }[],
  ) {
    for (const d of known()) this.names.set(d.serial_number, d.name);
  }

  start(): void {
    this.unsubscribe = this.bus.subscribe((e) => this.line(e));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  private name(serial: string): string {
    return this.names.get(serial) ?? serial;
  }

  private line(e: BusEvent): void {
    // Who did it (when a person did, through a surface): the end of the line, and its fields.
    const by = byWords(e.by);
    const who = whoFields(e.by);
    switch (e.name) {
      case 'device#addDevice': {
        const d = (e.data as Payload<'device#addDevice'>).payload as {
          serial_number: string;
          name: string;
          model?: string;
        };
        this.names.set(d.serial_number, d.name);
        this.log.info({ serial_number: d.serial_number, model: d.model, ...who }, `device added: ${d.name}${by}`);
        return;
      }
      case 'device#deleteDevice': {
        const { serial_number } = (e.data as Payload<'device#deleteDevice'>).endpoint;
        this.log.info({ serial_number, ...who }, `device removed: ${this.name(serial_number)}${by}`);
        this.names.delete(serial_number);
        return;
      }
      case 'device#updateDeviceInfo': {
        const d = e.data as Payload<'device#updateDeviceInfo'>;
        const before = this.names.get(d.endpoint.serial_number);
        if (before !== undefined && before !== d.payload.name)
          this.log.info(
            { serial_number: d.endpoint.serial_number, ...who },
            `device renamed: ${before} -> ${d.payload.name}${by}`,
          );
        this.names.set(d.endpoint.serial_number, d.payload.name);
        return;
      }
      case 'device#updateDeviceOnline': {
        const d = e.data as Payload<'device#updateDeviceOnline'>;
        const serial = d.endpoint.serial_number;
        this.log.info(
          { serial_number: serial },
          `device ${d.payload.online ? 'online' : 'offline'}: ${this.name(serial)}`,
        );
        return;
      }
      case 'security#updateArmState': {
        const { arm_state, detail } = (e.data as Payload<'security#updateArmState'>).payload;
        this.log.info(
          { sid: detail.sid, ...who },
          `${arm_state === 'arming' ? 'armed' : 'disarmed'}: ${detail.name}${by}`,
        );
        return;
      }
      case 'bridge#updateAlarmState': {
        const { alarm_state } = (e.data as Payload<'bridge#updateAlarmState'>).payload;
        const words: Record<string, string> = {
          alarming: 'alarm sounding',
          normal: 'alarm over',
        };
        this.log.info({ alarm_state, ...who }, `${words[alarm_state] ?? `alarm ${alarm_state}`}${by}`);
        return;
      }
      case 'link#window': {
        const { open, until } = (e.data as Payload<'link#window'>).payload;
        this.log.info(
          who,
          open ? `link button pressed${by}: apps may get a token until ${until}` : `link window closed${by}`,
        );
        return;
      }
      case 'link#waiting': {
        // The event carries the whole list whenever it changes (a press or a decision empties it):
        // a line says which apps have started waiting, and nothing when none has.
        const { apps } = (e.data as Payload<'link#waiting'>).payload;
        const fresh = apps.filter((a) => !this.waiting.has(a));
        this.waiting = new Set(apps);
        if (fresh.length > 0)
          this.log.info(
            { apps: fresh },
            `waiting for approval: ${fresh.map((a) => a || '(a client without app_name)').join(', ')}`,
          );
        return;
      }
      case 'token#issued': {
        const { token_id, app_name } = (e.data as Payload<'token#issued'>).payload;
        this.log.info({ token_id }, `token issued to ${app_name ?? 'a client without app_name'}`);
        return;
      }
      case 'token#denied': {
        const { app_name, reason } = (e.data as Payload<'token#denied'>).payload;
        const app = app_name ?? 'a client without app_name';
        // Denied in the console: the session that denied it says where, when it is known.
        const why = reason === 'in the console' ? (by ? by : ' (in the console)') : `: ${reason}${by}`;
        this.log.info(who, `token denied to ${app}${why}`);
        return;
      }
      case 'token#revoked':
        this.log.info(
          { token_id: (e.data as Payload<'token#revoked'>).payload.token_id, ...who },
          `token revoked${by}`,
        );
        return;
      case 'token#cleared':
        this.log.info(who, `every token cleared (factory reset)${by}`);
        return;
      default:
        return;
    }
  }
}
