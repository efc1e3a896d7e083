export * from './in-place-updater';
export {
  InProcessUpdaters,
  InPlaceUpdaterRegistrationError,
  IN_PROCESS_HOST_SUFFIX,
  type InPlaceUpdaterSource,
} from './in-process-updaters';
export { InProcessAwareTransport } from './in-process-transport';
export { IN_PROCESS_UPDATER_TABLE, InProcessUpdaterRegistrar } from './registrar';
