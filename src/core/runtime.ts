import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Runtime readings of this host (spec 2.8, G2). */
export interface Runtime {
  ram_used: number;
  cpu_used: number;
  power_up_time: string;
  cpu_temp?: number;
  cpu_temp_unit?: 'c';
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

/** Finds the thermal zone of the CPU, if the host has one. */
function findThermalZone(root = '/sys/class/thermal'): string | undefined {
  let zones: string[];
  try {
    zones = readdirSync(root)
      .filter((z) => z.startsWith('thermal_zone'))
      .sort();
  } catch {
    return undefined;
  }
  const typed = zones.map((z) => {
    let type = '';
    try {
      type = readFileSync(`${root}/${z}/type`, 'utf8').trim();
    } catch {
      // a zone without a type is still a candidate
    }
    return { path: `${root}/${z}/temp`, type };
  });
  const cpu = typed.find((z) => /cpu|soc|x86_pkg|core/i.test(z.type)) ?? typed[0];
  return cpu?.path;
}

/**
 * Reads the host's runtime figures. CPU use is measured over the last sampling interval (a
 * background sample every `intervalMs`), not since boot, so it shows the load now.
 */
export class RuntimeMonitor {
  private previous = sampleCpu();
  private cpuPercent: number | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly thermal = findThermalZone();

  constructor(private readonly intervalMs = 2000) {}

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
    const out: Runtime = {
      ram_used: memoryUsedPercent(),
      cpu_used: this.cpuPercent ?? this.tick(),
      power_up_time: new Date(Math.floor((Date.now() - os.uptime() * 1000) / 1000) * 1000).toISOString(),
      sd_card_used: '',
    };
    if (this.thermal) {
      try {
        const milli = Number(readFileSync(this.thermal, 'utf8').trim());
        if (Number.isFinite(milli)) {
          out.cpu_temp = Math.round(milli / 1000);
          out.cpu_temp_unit = 'c';
        }
      } catch {
        // the zone went away: leave the temperature out rather than invent one
      }
    }
    return out;
  }
}
