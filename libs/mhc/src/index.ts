export { MachineHealthCheckControllerModule } from './mhc-controller.module';
export {
  MachineHealthCheckReconciler,
  INVALID_SELECTOR_REASON,
  EXTERNAL_REMEDIATION_NOT_SUPPORTED_REASON,
} from './mhc.reconciler';
export {
  MHC_CONTROLLER_NAME,
  MHC_FIELD_MANAGER,
  MHC_CONTROLLER_OPTIONS,
  type MachineHealthCheckControllerOptions,
} from './options';
export {
  evaluateTarget,
  formatSeconds,
  healthCheckFailedMessage,
  isControlPlaneInitialized,
  isInfrastructureReady,
  DEFAULT_NODE_STARTUP_TIMEOUT_SECONDS,
  HAS_REMEDIATE_ANNOTATION_REASON,
  type TargetInput,
  type TargetHealth,
  type NodeLike,
  type NodeCondition,
  type ClusterLike,
  type MachineChecks,
} from './evaluate';
export {
  decideRemediationAllowed,
  parseUnhealthyRange,
  scaledValue,
  RemediationTriggerError,
  REMEDIATION_ALLOWED_CONDITION,
  REMEDIATION_ALLOWED_REASON,
  TOO_MANY_UNHEALTHY_REASON,
  INVALID_REMEDIATION_TRIGGER_REASON,
  type RemediationDecision,
} from './remediation-allowed';
export {
  decideMachineMarking,
  WAITING_FOR_REMEDIATION_MESSAGE,
  type MachineMarking,
  type MarkingContext,
} from './marking';
export { targetSelector, skipReason } from './targets';
