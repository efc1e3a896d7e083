import { Test } from '@nestjs/testing';
import { KubeConfig } from '@kubernetes/client-node';
import { ControllerRuntimeModule, MANAGER, RECONCILER_FOR, type Manager } from '@capi/controller-runtime';
import { MachineSetModule } from './module';
import { MachineDeploymentReconciler } from './machinedeployment/reconciler';
import { MachineSetReconciler } from './machineset/reconciler';

describe('MachineSetModule', () => {
  it('resolves with only ControllerRuntimeModule (no gates, no runtime client) and registers both controllers', async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const moduleRef = await Test.createTestingModule({
      imports: [ControllerRuntimeModule.forRoot({ kubeconfig: kc, autoStart: false }), MachineSetModule.forRoot()],
    }).compile();
    const app = moduleRef;
    app.useLogger(false);
    await app.init();
    try {
      expect(app.get(MachineSetReconciler)).toBeInstanceOf(MachineSetReconciler);
      expect(app.get(MachineDeploymentReconciler)).toBeInstanceOf(MachineDeploymentReconciler);
      expect(app.get<Manager>(MANAGER).controllerNames().sort()).toEqual(['machinedeployment', 'machineset']);
      expect(Reflect.getMetadata(RECONCILER_FOR, MachineSetReconciler).owns).toEqual([
        { apiVersion: 'cluster.x-k8s.io/v1beta2', kind: 'Machine' },
      ]);
    } finally {
      await app.close();
    }
  });
});
