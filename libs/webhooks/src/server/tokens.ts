/**
 * DI token of the webhooks a manager serves (`WebhookRegistration[]`): the manager's webhook server serves their paths
 * and, in the embedded default, registers them with its API server.
 */
export const WEBHOOK_REGISTRATIONS = Symbol.for('capi.WebhookRegistrations');
