/**
 * The devices and series the history knows, numbered once and kept in memory: a device keeps its
 * number (and its history) across renames, removal and re-adding (the registry gives a re-added
 * device the same serial number). New devices and series are written with the next batch, so
 * recording one value never costs a transaction of its own. Exclusions (a noisy sensor, or one
 * capability of it) are stored at once: the user was told they are.
 */
import type { CapabilityObject } from '../catalog/index.ts';
import { namedLevels } from '../core/devices/state.ts';
import type { Log } from '../lib/log.ts';
import { type EnergyRole, type FieldPlan, recordedFields, type SeriesKind } from './fields.ts';
import { type DeviceRow, type HistoryStore, MAX_SERIES, type SeriesRow } from './store.ts';

export interface DeviceInfo {
  id: number;
  serial: string;
  name: string;
  /** When the device left the registry with its history kept (epoch ms), else null. */
  removedAt: number | null;
  /** Its series by `capability \0 name \0 field`. */
  series: Map<string, SeriesInfo>;
  /** Its series by the field plan they were made from (the recorder's lookup, without building a key). */
  byPlan: Map<FieldPlan, SeriesInfo>;
}

export interface SeriesInfo {
  id: number;
  device: DeviceInfo;
  capability: string;
  /** The name level ('' when the capability has none). */
  name: string;
  field: string;
  kind: SeriesKind;
  unit: string | null;
  energy?: EnergyRole;
}

/** How one capability of a device is read from a state report. */
export interface CapabilityPlan {
  named: boolean;
  /** Fields by name level ('' when not named). */
  fields(name: string): readonly FieldPlan[];
}

const NEXT_DEVICE = 'next_device';
const NEXT_SERIES = 'next_series';

const seriesKey = (capability: string, name: string, field: string) => `${capability}\u0000${name}\u0000${field}`;

export class SeriesIndex {
  private readonly bySerial = new Map<string, DeviceInfo>();
  private readonly byDeviceId = new Map<number, DeviceInfo>();
  private readonly bySeriesId = new Map<number, SeriesInfo>();
  /** Exclusions: serial number -> capabilities left out ('' for the whole device). */
  private readonly excluded = new Map<string, Set<string>>();
  private readonly plans = new WeakMap<readonly CapabilityObject[], Map<string, CapabilityPlan>>();
  private readonly fieldCache = new Map<string, readonly FieldPlan[]>();
  private nextDevice = 1;
  private nextSeries = 1;
  private full = false;
  /** Rows to write with the next batch. */
  private dirtyDevices = new Set<DeviceInfo>();
  private newSeries: SeriesInfo[] = [];

  constructor(
    private readonly store: HistoryStore,
    private readonly log: Log,
  ) {}

  /** Reads the devices, series and exclusions of the store. */
  load(): void {
    this.bySerial.clear();
    this.byDeviceId.clear();
    this.bySeriesId.clear();
    this.excluded.clear();
    for (const r of this.store.devices()) {
      const d: DeviceInfo = {
        id: r.id,
        serial: r.serial_number,
        name: r.name,
        removedAt: r.removed_at,
        series: new Map(),
        byPlan: new Map(),
      };
      this.bySerial.set(d.serial, d);
      this.byDeviceId.set(d.id, d);
      this.nextDevice = Math.max(this.nextDevice, d.id + 1);
    }
    for (const r of this.store.series()) {
      const d = this.byDeviceId.get(r.device);
      if (!d) continue;
      const plan = this.fieldPlan(r.capability, r.name, r.field);
      const s: SeriesInfo = {
        id: r.id,
        device: d,
        capability: r.capability,
        name: r.name,
        field: r.field,
        kind: r.kind as SeriesKind,
        unit: r.unit,
        ...(plan?.energy ? { energy: plan.energy } : {}),
      };
      d.series.set(seriesKey(s.capability, s.name, s.field), s);
      this.bySeriesId.set(s.id, s);
      this.nextSeries = Math.max(this.nextSeries, s.id + 1);
    }
    for (const e of this.store.exclusions()) this.addExclusion(e.serial_number, e.capability);
    // Numbers are never given twice, not even after a device was forgotten: a batch written before
    // it was must not attach its values to a new series.
    this.nextDevice = Math.max(this.nextDevice, this.store.meta(NEXT_DEVICE) ?? 1);
    this.nextSeries = Math.max(this.nextSeries, this.store.meta(NEXT_SERIES) ?? 1);
  }

  private fields(capability: string, name: string): readonly FieldPlan[] {
    const key = `${capability}\u0000${name}`;
    let f = this.fieldCache.get(key);
    if (!f) {
      f = recordedFields(capability, name || undefined);
      this.fieldCache.set(key, f);
    }
    return f;
  }

  private fieldPlan(capability: string, name: string, field: string): FieldPlan | undefined {
    return this.fields(capability, name).find((p) => p.field === field);
  }

  /** How a device's capabilities are read (built once per capability list). */
  plan(caps: readonly CapabilityObject[]): Map<string, CapabilityPlan> {
    let plan = this.plans.get(caps);
    if (plan) return plan;
    plan = new Map();
    const named = namedLevels(caps);
    for (const c of caps) {
      if (plan.has(c.capability)) continue;
      const isNamed = named.has(c.capability);
      plan.set(c.capability, { named: isNamed, fields: (name) => this.fields(c.capability, name) });
    }
    this.plans.set(caps, plan);
    return plan;
  }

  device(serial: string): DeviceInfo | undefined {
    return this.bySerial.get(serial);
  }

  deviceById(id: number): DeviceInfo | undefined {
    return this.byDeviceId.get(id);
  }

  seriesById(id: number): SeriesInfo | undefined {
    return this.bySeriesId.get(id);
  }

  /** Series known (for sizing work). */
  get seriesCount(): number {
    return this.bySeriesId.size;
  }

  devices(): DeviceInfo[] {
    return [...this.bySerial.values()];
  }

  /** The device's entry, made (to be written with the next batch) when new; its name kept up to date. */
  ensureDevice(serial: string, name: string): DeviceInfo {
    let d = this.bySerial.get(serial);
    if (!d) {
      d = { id: this.nextDevice++, serial, name, removedAt: null, series: new Map(), byPlan: new Map() };
      this.bySerial.set(serial, d);
      this.byDeviceId.set(d.id, d);
      this.dirtyDevices.add(d);
    } else if (d.name !== name || d.removedAt !== null) {
      d.name = name;
      d.removedAt = null;
      this.dirtyDevices.add(d);
    }
    return d;
  }

  /** Marks a device removed, its history kept. */
  markRemoved(d: DeviceInfo, at: number): void {
    d.removedAt = at;
    this.dirtyDevices.add(d);
  }

  /** A series of a device, made when new; undefined when no more series fit in a row key. */
  ensureSeries(d: DeviceInfo, capability: string, name: string, plan: FieldPlan): SeriesInfo | undefined {
    let s = d.byPlan.get(plan);
    if (s) return s;
    const key = seriesKey(capability, name, plan.field);
    s = d.series.get(key);
    if (s) {
      d.byPlan.set(plan, s);
      return s;
    }
    if (this.nextSeries > MAX_SERIES) {
      if (!this.full) this.log.error({ max: MAX_SERIES }, 'history: no more series can be recorded');
      this.full = true;
      return undefined;
    }
    s = {
      id: this.nextSeries++,
      device: d,
      capability,
      name,
      field: plan.field,
      kind: plan.kind,
      unit: plan.unit ?? null,
      ...(plan.energy ? { energy: plan.energy } : {}),
    };
    d.series.set(key, s);
    d.byPlan.set(plan, s);
    this.bySeriesId.set(s.id, s);
    this.newSeries.push(s);
    return s;
  }

  /** A series by its capability, name and field. */
  find(d: DeviceInfo, capability: string, name: string, field: string): SeriesInfo | undefined {
    return d.series.get(seriesKey(capability, name, field));
  }

  /** Writes what changed since the last commit (inside the batch's transaction). */
  write(): void {
    if (this.dirtyDevices.size > 0) this.store.setMeta(NEXT_DEVICE, this.nextDevice);
    if (this.newSeries.length > 0) this.store.setMeta(NEXT_SERIES, this.nextSeries);
    for (const d of this.dirtyDevices) {
      const row: DeviceRow = { id: d.id, serial_number: d.serial, name: d.name, removed_at: d.removedAt };
      this.store.putDevice(row);
    }
    for (const s of this.newSeries) {
      const row: SeriesRow = {
        id: s.id,
        device: s.device.id,
        capability: s.capability,
        name: s.name,
        field: s.field,
        kind: s.kind,
        unit: s.unit,
      };
      this.store.putSeries(row);
    }
  }

  /** The batch that wrote the rows was committed. */
  committed(): void {
    this.dirtyDevices = new Set();
    this.newSeries = [];
  }

  /** Whether there is something to write. */
  get dirty(): boolean {
    return this.dirtyDevices.size > 0 || this.newSeries.length > 0;
  }

  /** Forgets a device in memory (its rows are deleted by the caller); a new report starts it afresh. */
  drop(d: DeviceInfo): void {
    this.bySerial.delete(d.serial);
    this.byDeviceId.delete(d.id);
    for (const s of d.series.values()) this.bySeriesId.delete(s.id);
    this.dirtyDevices.delete(d);
    this.newSeries = this.newSeries.filter((s) => s.device !== d);
  }

  /** Whether a device, or one capability of it, is left out of the history. */
  isExcluded(serial: string, capability?: string): boolean {
    if (this.excluded.size === 0) return false;
    const caps = this.excluded.get(serial);
    return caps !== undefined && (caps.has('') || (capability !== undefined && caps.has(capability)));
  }

  exclusions(): { serial_number: string; capability: string | null }[] {
    const out: { serial_number: string; capability: string | null }[] = [];
    for (const serial of [...this.excluded.keys()].sort())
      for (const c of [...(this.excluded.get(serial) ?? [])].sort())
        out.push({ serial_number: serial, capability: c || null });
    return out;
  }

  private addExclusion(serial: string, capability: string): void {
    let caps = this.excluded.get(serial);
    if (!caps) {
      caps = new Set();
      this.excluded.set(serial, caps);
    }
    caps.add(capability);
  }

  /** Leaves a device ('' capability: all of it) out of the history, stored at once. */
  exclude(serial: string, capability: string): void {
    this.store.exclude(serial, capability);
    this.addExclusion(serial, capability);
  }

  /** Records a device (or one capability) again, stored at once; without a capability, every exclusion of the device goes. */
  include(serial: string, capability?: string): void {
    this.store.include(serial, capability);
    const caps = this.excluded.get(serial);
    if (capability !== undefined) caps?.delete(capability);
    if (capability === undefined || caps?.size === 0) this.excluded.delete(serial);
  }

  /** Clears everything in memory (after the tables were emptied). */
  reset(): void {
    this.load();
    this.dirtyDevices = new Set();
    this.newSeries = [];
  }
}
