/**
 * The Matter bridge: one matter.js server node (an Aggregator with one bridged device per gateway
 * device the mapping table can show) kept in step with the device registry through the event bus,
 * and controllers' commands sent to the device service as D4 calls, in order per device. A refused
 * command is refused to the controller with the reason; what changes is what the device reports.
 */

import { createHash } from 'node:crypto';
import { Endpoint, type Environment, ServerNode } from '@matter/main';
import { AggregatorEndpoint } from '@matter/main/endpoints/aggregator';
import { DeviceCommissioner, FabricManager } from '@matter/main/protocol';
import { Status, StatusResponseError } from '@matter/main/types';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { stateWith } from '../../core/devices/reading.ts';
import type { Done } from '../../core/devices/service.ts';
import type { BusEvent, EventBus, EventName } from '../../core/event-bus.ts';
import type { Clock } from '../../lib/clock.ts';
import { translate } from './commands.ts';
import {
  type BridgedInfo,
  BridgedSwitch,
  bridgedEndpoint,
  buildable,
  builtPatch,
  type CommandServers,
  commandServers,
  type Part,
} from './endpoints.ts';
import type { PairingSecrets } from './pairing.ts';
import { PairingWindow } from './pairing-window.ts';
import { type DevicePlan, type EndpointPlan, planDevice } from './plan.ts';
import { qrSvg } from './qr-svg.ts';
import { batteryValues, clip, differing, endpointValues, fieldOf, type Patch } from './values.ts';

export interface MatterLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface MatterBridgeOptions {
  environment: Environment;
  secrets: PairingSecrets;
  uniqueId: string;
  port: number;
  /** Addresses the UDP port binds to (empty: every address). */
  listenIpv4?: string;
  listenIpv6?: string;
  ipv4: boolean;
  gatewayName: string;
  version: string;
  registry: { list(): DeviceRecord[]; get(serial: string): DeviceRecord | undefined };
  devices: { update(serial: string, body: Record<string, unknown>): Promise<Done> };
  bus: EventBus;
  log: MatterLog;
  /** The gateway's clock: when pairing mode, opened again for another controller, closes. */
  clock: Clock;
}

/** What `opencube matter` and the console show. */
export interface MatterStatus {
  running: boolean;
  commissioned: boolean;
  manual_pairing_code: string;
  qr_payload: string;
  /**
   * Whether a controller can add the bridge with the pairing code now: until the first one has
   * it, and then while pairing mode is opened again (`until`, ISO 8601; null while no controller
   * has the bridge, as then it stays open).
   */
  pairing: { open: boolean; until: string | null };
  port: number;
  fabrics: { index: number; label: string; vendor_id: number }[];
  devices: number;
}

function is<N extends EventName>(e: BusEvent, name: N): e is BusEvent<N> {
  return e.name === name;
}

/** A stable, storage-safe matter.js id for a serial number (endpoint numbers are kept per id). */
export function deviceId(serial: string): string {
  return `d${createHash('sha256').update(serial).digest('hex').slice(0, 16)}`;
}

/** What the bridge keeps of one bridged device. */
interface Known {
  endpoint: Endpoint;
  plan: DevicePlan;
  /** matter.js endpoint id -> the planned endpoint it shows. */
  parts: Map<string, EndpointPlan>;
  /** The endpoint a part's values are set on. */
  partEndpoint: Map<string, Endpoint>;
  label: string;
}

export class MatterBridge {
  private node?: ServerNode;
  private aggregator?: Endpoint;
  private readonly servers: CommandServers;
  private readonly known = new Map<string, Known>();
  /** matter.js endpoint id -> serial number. */
  private readonly owners = new Map<string, string>();
  /** Registry changes of one device applied in order (matter.js's writes are asynchronous). */
  private readonly queues = new Map<string, Promise<void>>();
  private unsubscribe?: () => void;
  private stopped = false;
  private readonly window: PairingWindow;

  constructor(private readonly opts: MatterBridgeOptions) {
    this.servers = commandServers((id, intent) => this.command(id, intent));
    this.window = new PairingWindow(
      () => {
        if (!this.node) throw new Error('the Matter bridge is not running');
        return this.node.env.get(DeviceCommissioner);
      },
      opts.clock,
      () => opts.log.info({}, 'matter: pairing mode closed'),
    );
  }

  /** Builds the node with every device, starts it (it advertises and listens), then follows the registry. */
  async start(): Promise<void> {
    const o = this.opts;
    const node = await ServerNode.create({
      id: 'bridge',
      environment: o.environment,
      network: {
        port: o.port,
        ipv4: o.ipv4,
        ...(o.listenIpv4 ? { listeningAddressIpv4: o.listenIpv4 } : {}),
        ...(o.listenIpv6 ? { listeningAddressIpv6: o.listenIpv6 } : {}),
      },
      commissioning: { passcode: o.secrets.passcode, discriminator: o.secrets.discriminator },
      productDescription: { name: clip(o.gatewayName), deviceType: AggregatorEndpoint.deviceType },
      basicInformation: {
        vendorName: 'opencube',
        // The test vendor and product ids of the specification: an uncertified bridge may use only these.
        vendorId: 0xfff1,
        productId: 0x8000,
        productName: 'opencube Matter bridge',
        productLabel: 'Matter bridge',
        nodeLabel: clip(o.gatewayName),
        hardwareVersion: 1,
        softwareVersion: 1,
        softwareVersionString: clip(o.version, 64),
        serialNumber: 'opencube-bridge',
        uniqueId: o.uniqueId,
      },
    } as never);
    this.node = node;
    const aggregator = new Endpoint(AggregatorEndpoint, { id: 'devices' });
    await node.add(aggregator);
    this.aggregator = aggregator;
    // Following the bus first, and the first build through the same per-device queues: a change
    // that comes while the devices are being built is applied after its device's build, not lost.
    this.unsubscribe = o.bus.subscribe((e) => this.event(e));
    // One device after another: built all at once, every build's short-lived objects are alive
    // together, and V8 grows its heap to that peak (docs/benchmarks.md, "The Matter bridge's memory").
    let previous: Promise<void> = Promise.resolve();
    for (const d of o.registry.list()) {
      const before = previous;
      this.enqueue(d.serial_number, async (s) => {
        await before;
        await this.sync(s);
      });
      previous = this.queues.get(d.serial_number) ?? previous;
    }
    await previous;
    await node.start();
    o.log.info({ port: o.port, devices: this.known.size }, 'matter: bridge started');
  }

  /** The gateway was renamed: controllers read the new name from the bridge's node label. */
  async rename(name: string): Promise<void> {
    if (this.stopped || !this.node) return;
    await this.node.set({ basicInformation: { nodeLabel: clip(name) } } as never);
  }

  /**
   * Opens pairing mode again, for the standard 15 minutes, so that another controller can add the
   * bridge with its pairing code (it closes once one has). A bridge no controller has is open
   * already: nothing changes then.
   */
  async openPairing(): Promise<MatterStatus> {
    if (this.stopped || !this.node) throw new Error('the Matter bridge is not running');
    if (this.node.state.commissioning.commissioned) {
      await this.window.open();
      this.opts.log.info({}, 'matter: pairing mode open for another controller');
    }
    return this.status();
  }

  /** Closes pairing mode opened for another controller (a bridge no controller has stays open). */
  async closePairing(): Promise<MatterStatus> {
    await this.window.close();
    return this.status();
  }

  /** Stops following the registry, lets commands and changes under way finish, closes the node. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.window.stop();
    this.unsubscribe?.();
    await Promise.allSettled([...this.queues.values()]);
    await this.node?.close();
  }

  /** The pairing code, QR payload and fabrics. */
  status(): MatterStatus {
    const node = this.node;
    const codes = node?.state.commissioning.pairingCodes;
    const fabrics = (node?.state.operationalCredentials.fabrics ?? []).map((f) => ({
      index: Number(f.fabricIndex),
      label: f.label,
      vendor_id: Number(f.vendorId),
    }));
    const commissioned = node?.state.commissioning.commissioned ?? false;
    const until = commissioned ? this.window.until : null;
    return {
      running: node?.lifecycle.isOnline ?? false,
      commissioned,
      manual_pairing_code: codes?.manualPairingCode ?? '',
      qr_payload: codes?.qrPairingCode ?? '',
      pairing: { open: !commissioned || until !== null, until: until === null ? null : new Date(until).toISOString() },
      port: this.opts.port,
      fabrics,
      devices: this.known.size,
    };
  }

  /** The QR code controllers scan, as an SVG image ('' before the node has its pairing codes). */
  qrSvg(): string {
    const payload = this.node?.state.commissioning.pairingCodes.qrPairingCode;
    return payload ? qrSvg(payload) : '';
  }

  /** Removes one fabric (a controller's access); false when there is no such fabric. */
  async removeFabric(index: number): Promise<boolean> {
    const node = this.node;
    if (!node) return false;
    const fabrics = node.state.operationalCredentials.fabrics;
    if (!fabrics.some((f) => Number(f.fabricIndex) === index)) return false;
    // Locally, not as a controller's command (which needs a remote session): matter.js's fabric
    // table deletes the fabric's keys and sessions, and the node updates its attributes from it.
    const fabric = node.env.get(FabricManager).find((f) => Number(f.fabricIndex) === index);
    if (!fabric) return false;
    await fabric.delete();
    return true;
  }

  // ---- the registry ----

  private event(e: BusEvent): void {
    if (is(e, 'device#addDevice')) this.enqueue(String(e.data.payload.serial_number), (s) => this.sync(s));
    else if (is(e, 'device#updateDeviceInfo')) this.enqueue(e.data.endpoint.serial_number, (s) => this.sync(s));
    else if (is(e, 'device#deleteDevice')) this.enqueue(e.data.endpoint.serial_number, (s) => this.forget(s));
    else if (is(e, 'device#updateDeviceOnline'))
      this.enqueue(e.data.endpoint.serial_number, (s) => this.reachable(s, e.data.payload.online));
    else if (is(e, 'device#updateDeviceState')) {
      const changed = e.data.payload;
      this.enqueue(e.data.endpoint.serial_number, (s) => this.stateChanged(s, changed));
    }
  }

  private enqueue(serial: string, run: (serial: string) => Promise<void>): void {
    if (this.stopped) return;
    const prev = this.queues.get(serial) ?? Promise.resolve();
    const next = prev.then(() => run(serial)).catch((err) => this.failed(serial, err));
    this.queues.set(serial, next);
    void next.then(() => {
      if (this.queues.get(serial) === next) this.queues.delete(serial);
    });
  }

  /** A device matter.js refused: logged with matter.js's reasons; the others are bridged still. */
  private failed(serial: string, err: unknown): void {
    const chain = (e: unknown): string => {
      const x = e as Error & { cause?: unknown };
      return x?.cause ? `${x.message}: ${chain(x.cause)}` : String(x?.message ?? x);
    };
    const reasons = err instanceof AggregateError ? err.errors.map(chain) : [chain(err)];
    this.opts.log.error({ err, serial, reasons }, 'matter: a device could not be bridged');
  }

  private info(d: DeviceRecord): BridgedInfo {
    return {
      nodeLabel: clip(d.name),
      reachable: d.online,
      uniqueId: deviceId(d.serial_number),
      vendorName: clip(d.manufacturer || 'unknown'),
      productName: clip(d.model || d.display_category),
      softwareVersionString: clip(d.firmware_version || '0', 64),
      serialNumber: clip(d.serial_number),
    };
  }

  /** (Re)builds a device: added when new, renamed in place, rebuilt when its Matter shape changed. */
  private async sync(serial: string): Promise<void> {
    const d = this.opts.registry.get(serial);
    if (!d) return this.forget(serial);
    const plan = planDevice(d);
    const old = this.known.get(serial);
    if (old && old.plan.signature === plan.signature) {
      const info = this.info(d);
      if (info.nodeLabel !== old.label) {
        await old.endpoint.set({ bridgedDeviceBasicInformation: { nodeLabel: info.nodeLabel } } as never);
        old.label = info.nodeLabel;
      }
      old.plan = plan;
      return this.applyState(serial, old, d, undefined);
    }
    if (old) await this.forget(serial);
    const id = deviceId(serial);
    const eps = buildable(plan.endpoints);
    if (eps.length === 0) return;
    const parts: Part[] = eps.map((ep) => ({
      id: eps.length === 1 ? id : `${id}-${ep.key.replace(/[^A-Za-z0-9_-]/g, '_')}`,
      plan: ep,
      values: builtPatch(ep, endpointValues(ep, d)),
    }));
    const battery = plan.battery ? batteryValues(plan, d) : undefined;
    const endpoint = bridgedEndpoint(id, this.info(d), parts, this.servers, battery, plan.identify);
    if (!endpoint || !this.aggregator) return;
    await this.aggregator.add(endpoint);
    const partEndpoint = new Map<string, Endpoint>();
    if (parts.length === 1) partEndpoint.set(id, endpoint);
    else for (const child of endpoint.parts) partEndpoint.set(child.id, child);
    this.known.set(serial, {
      endpoint,
      plan,
      parts: new Map(parts.map((p) => [p.id, p.plan])),
      partEndpoint,
      label: clip(d.name),
    });
    for (const p of parts) this.owners.set(p.id, serial);
    this.opts.log.debug({ serial, endpoints: parts.map((p) => p.plan.deviceType) }, 'matter: device bridged');
  }

  /** A removed device: its endpoint leaves the aggregator (controllers drop it). */
  private async forget(serial: string): Promise<void> {
    const k = this.known.get(serial);
    if (!k) return;
    this.known.delete(serial);
    for (const id of k.parts.keys()) this.owners.delete(id);
    await k.endpoint.delete();
  }

  private async reachable(serial: string, online: boolean): Promise<void> {
    const k = this.known.get(serial);
    if (k) await k.endpoint.set({ bridgedDeviceBasicInformation: { reachable: online } } as never);
  }

  private async stateChanged(serial: string, changed: Record<string, unknown>): Promise<void> {
    const k = this.known.get(serial);
    const stored = this.opts.registry.get(serial);
    if (!k || !stored) return;
    const state = stateWith(stored.state, changed);
    await this.applyState(serial, k, { ...stored, state }, changed);
    await this.presses(serial, k, changed);
  }

  /** A press in a report becomes the Switch events of its button's endpoint. */
  private async presses(serial: string, k: Known, changed: Record<string, unknown>): Promise<void> {
    for (const [id, ep] of k.parts) {
      if (ep.kind !== 'button') continue;
      for (const cap of ep.features.presses ?? []) {
        const kind = fieldOf(changed, cap, 'press');
        if (kind !== 'singlePress' && kind !== 'doublePress' && kind !== 'longPress') continue;
        const target = k.partEndpoint.get(id);
        if (!target) continue;
        try {
          await target.act((agent) => agent.get(BridgedSwitch).press(kind));
        } catch (err) {
          this.opts.log.warn({ serial, err: (err as Error).message }, 'matter: a press was not passed on');
        }
      }
    }
  }

  private async applyState(
    serial: string,
    k: Known,
    d: DeviceRecord,
    changed: Record<string, unknown> | undefined,
  ): Promise<void> {
    for (const [id, ep] of k.parts) {
      const patch = builtPatch(ep, endpointValues(ep, d, changed));
      const target = k.partEndpoint.get(id);
      if (target && Object.keys(patch).length > 0) await this.set(serial, target, patch);
    }
    if (k.plan.battery) {
      const patch = batteryValues(k.plan, d);
      if (Object.keys(patch).length > 0) await this.set(serial, k.endpoint, patch);
    }
  }

  /**
   * Sets the attribute values the endpoint does not hold already (nothing when none changed); a
   * value Matter refuses (out of its range) is logged, the others still set.
   */
  private async set(serial: string, endpoint: Endpoint, patch: Patch): Promise<void> {
    const state = endpoint.state as unknown as Record<string, Record<string, unknown> | undefined>;
    const changes = differing(patch, (behavior) => state[behavior]);
    if (Object.keys(changes).length === 0) return;
    try {
      await endpoint.set(changes as never);
    } catch (err) {
      this.opts.log.warn({ serial, err: (err as Error).message }, 'matter: a value of the device was not accepted');
    }
  }

  // ---- from controllers ----

  /** A controller's command: translated to D4, sent through the device service; a refusal throws to the controller. */
  private async command(endpointId: string, intent: Parameters<typeof translate>[0]): Promise<void> {
    const serial = this.owners.get(endpointId);
    const k = serial === undefined ? undefined : this.known.get(serial);
    const ep = k?.parts.get(endpointId);
    const device = serial === undefined ? undefined : this.opts.registry.get(serial);
    if (!serial || !k || !ep || !device) throw new StatusResponseError('no such device', Status.Failure);
    const t = translate(intent, ep, k.plan, device);
    if (!t.ok) {
      this.restore(serial);
      throw new StatusResponseError(t.message, Status.ConstraintError);
    }
    let done: Done;
    try {
      done = await this.opts.devices.update(serial, t.body);
    } catch (err) {
      this.opts.log.error({ err, serial }, 'matter: the device service failed on a command');
      this.restore(serial);
      throw new StatusResponseError('server exception', Status.Failure);
    }
    if (!done.ok) {
      this.opts.log.warn({ serial, error: done.code }, `matter: command refused: ${done.message}`);
      this.restore(serial);
      throw new StatusResponseError(done.message, Status.Failure);
    }
  }

  /** Sets the device's stored state again: an attribute a controller wrote and the gateway refused goes back. */
  private restore(serial: string): void {
    this.enqueue(serial, async (s) => {
      const k = this.known.get(s);
      const d = this.opts.registry.get(s);
      if (k && d) await this.applyState(s, k, d, undefined);
    });
  }
}
