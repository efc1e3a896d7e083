// Defaulting of spec.replicas for MachineDeployments and MachineSets (upstream calculateMachineDeploymentReplicas in
// core/webhooks/admission/machinedeployment.go and calculateMachineSetReplicas in machineset.go, which are the same
// logic): an explicit value stays; with both cluster-autoscaler size annotations the value is brought into
// [min, max] (a new object gets min); otherwise 1.
import { AUTOSCALER_MAX_SIZE_ANNOTATION, AUTOSCALER_MIN_SIZE_ANNOTATION } from './validation';

interface Scalable {
  metadata?: { annotations?: Record<string, string> };
  spec?: { replicas?: number };
}

/** Go's strconv.ParseInt(s, 10, 32) with its error text. */
function parseInt32(s: string): number {
  if (!/^[+-]?\d+$/.test(s)) throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = BigInt(s);
  if (n < -(2n ** 31n) || n >= 2n ** 31n)
    throw new Error(`strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range`);
  return Number(n);
}

/**
 * The replicas value to default to. `kind` words the error ("MachineDeployment" / "MachineSet"); an unparsable
 * annotation throws with upstream's message (the webhook denies the request with it).
 */
export function calculateReplicas(kind: string, oldObj: Scalable | undefined, newObj: Scalable): number {
  if (newObj.spec?.replicas !== undefined && newObj.spec.replicas !== null) return newObj.spec.replicas;

  const annotations = newObj.metadata?.annotations ?? {};
  const minStr = annotations[AUTOSCALER_MIN_SIZE_ANNOTATION];
  const maxStr = annotations[AUTOSCALER_MAX_SIZE_ANNOTATION];
  if (minStr === undefined || maxStr === undefined) return 1;

  const parse = (s: string, annotation: string): number => {
    try {
      return parseInt32(s);
    } catch (e) {
      // "caculate" is upstream's spelling.
      throw new Error(
        `failed to caculate ${kind} replicas value: could not parse the value of the ${JSON.stringify(annotation)} annotation: ${(e as Error).message}`,
      );
    }
  };
  const minSize = parse(minStr, AUTOSCALER_MIN_SIZE_ANNOTATION);
  const maxSize = parse(maxStr, AUTOSCALER_MAX_SIZE_ANNOTATION);

  // A new object starts at min size so the autoscaler can take over.
  if (!oldObj) return minSize;
  const oldReplicas = oldObj.spec?.replicas;
  if (oldReplicas === undefined || oldReplicas === null) return minSize;
  if (oldReplicas < minSize) return minSize;
  if (oldReplicas > maxSize) return maxSize;
  return oldReplicas;
}
