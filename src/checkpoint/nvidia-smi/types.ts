// The facts the nvidia-smi readers return, whatever shape they were read from (CSV query, default table,
// `-q` text, `-L` list, `topo -m`). A figure the output does not carry, or carries as a placeholder
// (`[N/A]`, `Not Supported`), is null; a list the output was cut inside says so in `truncated`.

export interface GpuRow {
  /** The GPU's index as nvidia-smi numbers it (the row order when the output does not print it). */
  index: number;
  /** Null for a placeholder (`ERR!`); the table shortens long names with `...` (see nameCut). */
  name: string | null;
  /** True when the default table cut the name (`NVIDIA A100-SXM...`): a prefix, not the name. */
  nameCut: boolean;
  /** Null when the output does not carry it (the default table). */
  uuid: string | null;
  /** `00000000:18:00.0` as printed, or null. */
  busId: string | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
  utilizationPct: number | null;
  /** MIG mode as the output states it, or null when it does not. */
  migEnabled: boolean | null;
}

/** One MIG device of the table's "MIG devices" section. */
export interface MigDevice {
  gpuIndex: number;
  gpuInstanceId: number;
  computeInstanceId: number;
  migIndex: number;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
}

export interface GpuInventory {
  /** The GPUs the output shows (fewer than `count` when it was cut or selected with `-i`). */
  gpus: GpuRow[];
  /** How many GPUs the host has, or null when the output was cut before it could say (see truncated). */
  count: number | null;
  /** Why the output is known to be incomplete (cut mid-row, after a GPU block, …), or null. */
  truncated: string | null;
  driverVersion: string | null;
  cudaVersion: string | null;
  /** The shape read: CSV from a query, the default table, `-q` text, or the `-L` list. */
  shape: 'csv' | 'table' | 'query' | 'list';
  migDevices: MigDevice[];
}

export interface ComputeApp {
  pid: number;
  /** The GPU as a UUID (CSV, `-q`), an index (table) or a bus id (CSV `gpu_bus_id`, `-q`). */
  gpuUuid: string | null;
  gpuIndex: number | null;
  gpuBusId: string | null;
  usedMemoryMiB: number | null;
  processName: string;
  /** `C`, `G`, `C+G`, … when the output says. */
  type: string | null;
}

export interface ProcessListing {
  apps: ComputeApp[];
  /** Why the listing is known to be incomplete, or null. */
  truncated: string | null;
}

export interface Topology {
  gpus: string[];
  /**
   * links[i][j]: the cell between GPUi and GPUj (`X`, `NV18`, `PIX`, `PXB`, `PHB`, `NODE`, `SYS`); null
   * where a cut matrix did not show it (a cell is known from its row or, the matrix being symmetric, its
   * column).
   */
  links: (string | null)[][];
  /**
   * nvlink when every GPU pair is joined by NV#, pcie when none is, mixed otherwise; unknown when a cut
   * matrix hides a pair and the links it shows do not already make it mixed.
   */
  kind: 'nvlink' | 'pcie' | 'mixed' | 'single' | 'unknown';
  /** The NIC columns (`NIC0`, or a name such as `mlx5_bond_0` in older drivers), by the NIC legend's name when given. */
  nics: string[];
  /** nicLinks[i][k]: the cell between GPUi and NIC k; null where not shown. */
  nicLinks: (string | null)[][];
  /** CPU affinity per GPU row (`0-47,96-143`), null where not printed. */
  cpuAffinity: (string | null)[];
  /** NUMA affinity per GPU row, null where not printed or `N/A`. */
  numaAffinity: (string | null)[];
  /** Where the matrix was cut (what it did not show), or null when it is whole. */
  truncated: string | null;
}

/** A GPU row with every optional fact unknown; readers fill in what they read. */
export function gpuRow(index: number, facts: Partial<GpuRow> = {}): GpuRow {
  return {
    index,
    name: null,
    nameCut: false,
    uuid: null,
    busId: null,
    memoryUsedMiB: null,
    memoryTotalMiB: null,
    utilizationPct: null,
    migEnabled: null,
    ...facts,
  };
}
