/**
 * One row per task with an objective, from GET /api/dashboard/sla: the RPO side lists only
 * violations, the RTO side every task with an RTO, so a task's state needs both. Pure: unit-tested.
 */
export type RtoState = 'ok' | 'exceeded' | 'unmeasured';

export interface SlaPayload {
  violations: readonly {
    taskId: number;
    taskName: string;
    slaHoursRpo: number;
    lastSuccessAt?: string;
    hoursSinceLastSuccess: number;
    neverSucceeded: boolean;
  }[];
  rto: readonly {
    taskId: number;
    taskName: string;
    rtoMinutes: number;
    rtoStatus: RtoState;
    measuredMinutes: number | null;
    measuredAt: string | null;
    verifyRecordId: number | null;
  }[];
}

/** `breach`: an objective is missed; `unproven`: nothing missed, but the RTO has no recent measurement. */
export type SlaLevel = 'breach' | 'unproven' | 'ok';

export interface SlaRow {
  taskId: number;
  taskName: string;
  level: SlaLevel;
  rpo: { hours: number; hoursSince: number; lastSuccessAt: string | null; neverSucceeded: boolean } | null;
  rto: {
    minutes: number;
    status: RtoState;
    measuredMinutes: number | null;
    measuredAt: string | null;
    verifyRecordId: number | null;
  } | null;
}

const ORDER: Record<SlaLevel, number> = { breach: 0, unproven: 1, ok: 2 };

/** Tasks needing attention first (breaches, then unproven RTOs), then by name. */
export function slaRows(sla: SlaPayload): SlaRow[] {
  const rows = new Map<number, SlaRow>();
  const row = (taskId: number, taskName: string) => {
    let r = rows.get(taskId);
    if (!r) rows.set(taskId, (r = { taskId, taskName, level: 'ok', rpo: null, rto: null }));
    return r;
  };
  for (const v of sla.violations) {
    row(v.taskId, v.taskName).rpo = {
      hours: v.slaHoursRpo,
      hoursSince: v.hoursSinceLastSuccess,
      lastSuccessAt: v.lastSuccessAt ?? null,
      neverSucceeded: v.neverSucceeded,
    };
  }
  for (const r of sla.rto) {
    row(r.taskId, r.taskName).rto = {
      minutes: r.rtoMinutes,
      status: r.rtoStatus,
      measuredMinutes: r.measuredMinutes,
      measuredAt: r.measuredAt,
      verifyRecordId: r.verifyRecordId,
    };
  }
  for (const r of rows.values())
    r.level = r.rpo || r.rto?.status === 'exceeded' ? 'breach' : r.rto?.status === 'unmeasured' ? 'unproven' : 'ok';
  return [...rows.values()].sort((a, b) => ORDER[a.level] - ORDER[b.level] || a.taskName.localeCompare(b.taskName));
}
