export {
  type AcceptedChange,
  type AcceptedChanges,
  applyAcceptedChanges,
  DEFAULT_ACCEPTED_CHANGES,
  withAcceptedChanges,
} from './accepted-changes';
export { InPlaceUpdaterHandlers, type InPlaceUpdaterOptions } from './handlers';
export {
  HANDLER_NAMES,
  type RunningInPlaceUpdater,
  startInPlaceUpdater,
  type StartInPlaceUpdaterOptions,
} from './server';
