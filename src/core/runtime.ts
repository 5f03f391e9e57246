import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Runtime readings of this host (spec 2.8, G2). */
export interface Runtime {
  ram_used: number;
  cpu_used: number;
  power_up_time: string;
  /** Always served (a dashboard calls `cpu_temp_unit.toUpperCase()` unguarded): 0 when the host has no sensor. */
  cpu_temp: number;
  cpu_temp_unit: 'c';
  /** Beyond the spec: whether `cpu_temp` was read from a sensor (false on hosts without one). */
  cpu_temp_sensor: boolean;
  sd_card_used: number | '';
}

interface CpuSample {
  idle: number;
  total: number;
}

function sampleCpu(): CpuSample {
  let idle = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.irq + times.idle;
  }
  return { idle, total };
}

function memoryUsedPercent(): number {
  try {
    const info = readFileSync('/proc/meminfo', 'utf8');
    const total = Number(/MemTotal:\s+(\d+)/.exec(info)?.[1]);
    const available = Number(/MemAvailable:\s+(\d+)/.exec(info)?.[1]);
    if (total > 0 && Number.isFinite(available)) return Math.round((100 * (total - available)) / total);
  } catch {
    // not Linux: fall back to what node reports
  }
  return Math.round((100 * (os.totalmem() - os.freemem())) / os.totalmem());
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

const list = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
};

/** Sensor names and thermal zone types that mean the CPU or the SoC (Raspberry Pi: cpu_thermal). */
const CPU_SENSOR = /cpu|soc|x86_pkg|core|k10temp|zenpower|package/i;

/**
 * Finds the file holding the CPU temperature in millidegrees Celsius: a thermal zone
 * (`/sys/class/thermal/thermal_zone*`, typed like the CPU first), else a hwmon sensor
 * (`/sys/class/hwmon/hwmon*` named coretemp, k10temp, cpu_thermal...), else none.
 * `sys` is the sysfs root (tests give a folder of their own).
 */
export function findCpuTemperature(sys = '/sys'): string | undefined {
  const zones = list(`${sys}/class/thermal`)
    .filter((z) => z.startsWith('thermal_zone'))
    .map((z) => ({ path: `${sys}/class/thermal/${z}/temp`, type: readText(`${sys}/class/thermal/${z}/type`) ?? '' }))
    .filter((z) => readText(z.path) !== undefined);
  const zone = zones.find((z) => CPU_SENSOR.test(z.type)) ?? zones[0];
  if (zone) return zone.path;
  const sensors = list(`${sys}/class/hwmon`).flatMap((h) => {
    const dir = `${sys}/class/hwmon/${h}`;
    const name = readText(`${dir}/name`) ?? '';
    const inputs = list(dir).filter((f) => /^temp\d+_input$/.test(f));
    return inputs.map((f) => ({ path: `${dir}/${f}`, name }));
  });
  return (sensors.find((x) => CPU_SENSOR.test(x.name)) ?? sensors[0])?.path;
}

/**
 * Reads the host's runtime figures. CPU use is measured over the last sampling interval (a
 * background sample every `intervalMs`), not since boot, so it shows the load now.
 */
export class RuntimeMonitor {
  private previous = sampleCpu();
  private cpuPercent: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly thermal: string | undefined;

  /** `sys`: the sysfs root where the CPU temperature is looked for. */
  constructor(
    private readonly intervalMs = 2000,
    sys = '/sys',
  ) {
    this.thermal = findCpuTemperature(sys);
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): number {
    const now = sampleCpu();
    const dTotal = now.total - this.previous.total;
    const dIdle = now.idle - this.previous.idle;
    if (dTotal > 0) {
      this.cpuPercent = Math.min(100, Math.max(0, Math.round((100 * (dTotal - dIdle)) / dTotal)));
      this.previous = now;
    }
    return this.cpuPercent ?? 0;
  }

  /** The figures of G2. */
  read(): Runtime {
    const milli = this.thermal ? Number(readText(this.thermal)) : Number.NaN;
    const sensor = Number.isFinite(milli);
    return {
      ram_used: memoryUsedPercent(),
      cpu_used: this.cpuPercent ?? this.tick(),
      power_up_time: new Date(Math.floor((Date.now() - os.uptime() * 1000) / 1000) * 1000).toISOString(),
      cpu_temp: sensor ? Math.round(milli / 1000) : 0,
      cpu_temp_unit: 'c',
      cpu_temp_sensor: sensor,
      sd_card_used: '',
    };
  }
}
