// metav1.LabelSelector matching (matchLabels AND matchExpressions). Empty/absent selector matches everything.
import type { LabelSelector } from './extension-config';

export function matchesLabelSelector(selector: LabelSelector | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[k] !== v) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(labels[req.key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[req.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        throw new Error(`invalid label selector operator ${JSON.stringify((req as { operator: unknown }).operator)}`);
    }
  }
  return true;
}
