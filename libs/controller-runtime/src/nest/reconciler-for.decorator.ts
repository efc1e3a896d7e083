import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';
import { ControllerOptions } from '../controller/types';

export const RECONCILER_FOR = 'capi:reconciler-for';

/**
 * Marks an injectable class implementing Reconciler as a controller. ControllerRuntimeModule discovers it at
 * application bootstrap and adds it to the Manager with these options.
 */
export function ReconcilerFor(options: ControllerOptions): ClassDecorator {
  return applyDecorators(Injectable(), SetMetadata(RECONCILER_FOR, options));
}
