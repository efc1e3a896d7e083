// Upstream's manager exits when it loses leader election (controller-runtime's Start returns "leader election lost"
// and main exits 1): a new process campaigns again from a clean state.
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { MANAGER, type Manager } from '@capi/controller-runtime';
import { MANAGER_EXIT, type ManagerExit } from '../runtime-sdk/warm-up-exit';

/** Exit code of a manager that lost leader election (upstream: os.Exit(1)). */
export const LEADERSHIP_LOST_EXIT_CODE = 1;

@Injectable()
export class LeadershipLostExit implements OnApplicationBootstrap {
  constructor(
    @Inject(MANAGER) private readonly manager: Manager,
    @Inject(MANAGER_EXIT) private readonly exit: ManagerExit,
  ) {}

  onApplicationBootstrap(): void {
    this.manager.onLeadershipLost(() => this.exit.request(LEADERSHIP_LOST_EXIT_CODE, 'leader election lost'));
  }
}
