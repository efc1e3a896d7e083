// Write failures for chosen objects, injected between the controllers and a real API server: the requests that are
// not failed go to the server as they are. Upstream's controller tests use controller-runtime's interceptor.Funcs on a
// fake client for the same cases (core/reconcilers/machineset/machineset_controller_test.go).
import type { KubeObject } from '@capi/apimachinery';
import type { Client, ObjectRef } from '@capi/controller-runtime';

export type FaultVerb = 'apply' | 'patch' | 'delete';

interface Fault {
  verb: FaultVerb;
  kind: string;
  name: string;
}

export class ClientFaults {
  private faults: Fault[] = [];
  /** Failed requests, as `<verb> <kind>/<name>`. */
  readonly failed: string[] = [];

  /** Fails every `verb` request on the object `kind`/`name` (`prefix*`: every name starting with it) until cleared. */
  fail(verb: FaultVerb, kind: string, name: string): void {
    this.faults.push({ verb, kind, name });
  }

  clear(): void {
    this.faults = [];
  }

  private check(verb: FaultVerb, kind: string | undefined, name: string | undefined): void {
    const matches = (f: Fault) =>
      f.name.endsWith('*') ? (name ?? '').startsWith(f.name.slice(0, -1)) : f.name === name;
    if (!this.faults.some((f) => f.verb === verb && f.kind === kind && matches(f))) return;
    this.failed.push(`${verb} ${kind}/${name}`);
    throw new Error(`injected failure: ${verb} ${kind} ${name}`);
  }

  /** `client` with the faults applied to apply, patch and delete. */
  wrap(client: Client): Client {
    return new Proxy(client, {
      get: (target, prop, receiver) => {
        const real = Reflect.get(target, prop, receiver);
        if (typeof real !== 'function') return real;
        if (prop === 'apply')
          return (obj: KubeObject, ...rest: unknown[]) => {
            this.check('apply', obj.kind, obj.metadata.name);
            return real.call(target, obj, ...rest);
          };
        if (prop === 'patch' || prop === 'delete')
          return (ref: ObjectRef, ...rest: unknown[]) => {
            this.check(prop, ref.kind, ref.name);
            return real.call(target, ref, ...rest);
          };
        return real.bind(target);
      },
    });
  }
}
