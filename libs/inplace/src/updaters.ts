// Which updaters (ExtensionConfigs) an in-place update belongs to, and in which order their hooks are called.
// Composition is this project's extension (upstream supports one updater): the Can* hooks are called in
// ExtensionConfig name order (then handler name), and the owner records on the Machine which ExtensionConfigs
// contributed patches to the accepted change; UpdateMachine is then called, in the same order, on those only.
import { IN_PLACE_UPDATERS_ANNOTATION } from '@capi/api';
import type { KubeObject } from '@capi/apimachinery';

/** Comma-separated ExtensionConfig names whose Can* patches made up the accepted in-place change (the key is in @capi/api). */
export { IN_PLACE_UPDATERS_ANNOTATION };

const split = (handler: string) => {
  const i = handler.indexOf('.');
  return i < 0 ? { config: '', handler } : { config: handler.slice(i + 1), handler: handler.slice(0, i) };
};

/** "<handler>.<ExtensionConfig name>" -> the ExtensionConfig name. */
export const extensionConfigOfHandler = (name: string): string => split(name).config;

/** The one call order of every hook of composed updaters: ExtensionConfig name, then handler name. */
export function orderExtensions(names: readonly string[]): string[] {
  return [...names].sort((a, b) => {
    const x = split(a);
    const y = split(b);
    return x.config < y.config
      ? -1
      : x.config > y.config
        ? 1
        : x.handler < y.handler
          ? -1
          : x.handler > y.handler
            ? 1
            : 0;
  });
}

/** The recorded updaters of a Machine, undefined when none were recorded (then every updater is called). */
export function recordedUpdaters(machine: Pick<KubeObject, 'metadata'>): string[] | undefined {
  const raw = machine.metadata.annotations?.[IN_PLACE_UPDATERS_ANNOTATION];
  const names = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length ? names : undefined;
}

/** Annotation patch value for the contributing updaters; undefined when there is nothing to record. */
export function updatersAnnotation(updaters: readonly string[]): Record<string, string> {
  return updaters.length ? { [IN_PLACE_UPDATERS_ANNOTATION]: updaters.join(',') } : {};
}

export interface UpdateMachineSelection {
  /** Handlers to call, in order. */
  handlers: string[];
  /** Recorded updaters without a registered UpdateMachine handler (an error: their part of the change would not be applied). */
  missing: string[];
}

/** UpdateMachine handlers for a Machine: in composition order, restricted to the recorded updaters if any. */
export function selectUpdateMachineHandlers(
  registered: readonly string[],
  machine: Pick<KubeObject, 'metadata'>,
): UpdateMachineSelection {
  const ordered = orderExtensions(registered);
  const updaters = recordedUpdaters(machine);
  if (!updaters) return { handlers: ordered, missing: [] };
  const handlers = ordered.filter((n) => updaters.includes(extensionConfigOfHandler(n)));
  const missing = updaters.filter((u) => !handlers.some((n) => extensionConfigOfHandler(n) === u));
  return { handlers, missing };
}
