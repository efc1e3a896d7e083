// Rollout comparison of two Machine templates (upstream mdutil.MachineTemplateUpToDate), shared by the
// MachineDeployment planner and the Machine controller's UpToDate condition.

interface RefLike {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

/** The parts of a MachineTemplateSpec the comparison reads. */
export interface MachineTemplateLike {
  spec: {
    version?: string;
    failureDomain?: string;
    bootstrap?: { configRef?: RefLike; dataSecretName?: string };
    infrastructureRef?: RefLike;
    [field: string]: unknown;
  };
}

export interface MachineTemplateComparison {
  upToDate: boolean;
  /** Detailed differences (logs, MachineSet selection). */
  logMessages: string[];
  /** Short differences for conditions surfacing on Machines (upstream ConditionMessages). */
  conditionMessages: string[];
}

/** Drops undefined/null/empty values so that "absent" and "zero" compare equal, like Go zero values. */
function normalize(v: unknown): unknown {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return undefined;
  if (Array.isArray(v)) return v.length === 0 ? undefined : v.map(normalize);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const n = normalize((v as Record<string, unknown>)[k]);
      if (n !== undefined) out[k] = n;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return v;
}

/** Deep equality where absent, null and zero values are the same (Go's reflect.DeepEqual on zero values). */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalize(a)) === JSON.stringify(normalize(b));
}

// Condition messages surface on Machines: "KubeadmConfigTemplate" reads "KubeadmConfig".
const withoutTemplateSuffix = (kind: string | undefined) => (kind ?? '').replace(/Template$/, '');

/**
 * Compares the rollout-relevant fields of two machine templates: version, bootstrap, infrastructureRef and
 * failureDomain. Fields propagated in place (labels, annotations, timeouts, taints...) never cause a rollout.
 */
export function compareMachineTemplates(
  current: MachineTemplateLike,
  desired: MachineTemplateLike,
): MachineTemplateComparison {
  const c = current.spec ?? {};
  const d = desired.spec ?? {};
  const logMessages: string[] = [];
  const conditionMessages: string[] = [];
  if ((c.version ?? '') !== (d.version ?? '')) {
    logMessages.push(`spec.version ${c.version ?? ''}, ${d.version ?? ''} required`);
    conditionMessages.push(`Version ${c.version ?? ''}, ${d.version ?? ''} required`);
  }
  if (!semanticEqual(c.bootstrap, d.bootstrap)) {
    if (c.bootstrap?.configRef?.name) {
      logMessages.push(
        `spec.bootstrap.configRef ${c.bootstrap.configRef.kind ?? ''} ${c.bootstrap.configRef.name}, ${d.bootstrap?.configRef?.kind ?? ''} ${d.bootstrap?.configRef?.name ?? ''} required`,
      );
      conditionMessages.push(`${withoutTemplateSuffix(c.bootstrap.configRef.kind)} is not up-to-date`);
    } else {
      const m = `spec.bootstrap.dataSecretName ${c.bootstrap?.dataSecretName ?? 'nil'}, ${d.bootstrap?.dataSecretName ?? 'nil'} required`;
      logMessages.push(m);
      conditionMessages.push(m);
    }
  }
  if (!semanticEqual(c.infrastructureRef, d.infrastructureRef)) {
    logMessages.push(
      `spec.infrastructureRef ${c.infrastructureRef?.kind ?? ''} ${c.infrastructureRef?.name ?? ''}, ${d.infrastructureRef?.kind ?? ''} ${d.infrastructureRef?.name ?? ''} required`,
    );
    conditionMessages.push(`${withoutTemplateSuffix(c.infrastructureRef?.kind)} is not up-to-date`);
  }
  if ((c.failureDomain ?? '') !== (d.failureDomain ?? '')) {
    logMessages.push(`spec.failureDomain ${c.failureDomain ?? ''}, ${d.failureDomain ?? ''} required`);
    conditionMessages.push(`Failure domain ${c.failureDomain ?? ''}, ${d.failureDomain ?? ''} required`);
  }
  return { upToDate: logMessages.length === 0, logMessages, conditionMessages };
}
