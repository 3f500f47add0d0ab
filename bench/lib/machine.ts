/** The machine a bench ran on, printed above the tables and kept in the JSON. */
import os from "node:os";

export interface MachineInfo {
  cpuModel: string;
  /** os.availableParallelism(): what the process may use. */
  cores: number;
  memoryGiB: number;
  node: string;
  v8: string;
  platform: string;
  /** 1-minute load average when the bench started. */
  loadAverage1m: number;
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? "unknown",
    cores: os.availableParallelism(),
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    v8: process.versions.v8,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    loadAverage1m: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}
